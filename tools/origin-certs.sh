# Sourced by the benchmarks that serve over TLS (bench-proxy.sh, bench-conns.sh, bench-load.sh);
# needs openssl, and the sourcing script's `die`.

# origin_certificates DIR NAME: a test CA (DIR/origin-ca.pem) and a server certificate for nginx
# (DIR/server.pem, DIR/server.key; names localhost, 127.0.0.1 and *.bench.test), both EC P-256,
# made with openssl for this run only; NAME goes into their subjects. Dies when openssl fails.
origin_certificates() {
  local TLS_DIR=$1 ORIGIN_CA=$1/origin-ca.pem
  mkdir -p "$TLS_DIR"
  cat >"$TLS_DIR/ca.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
O = rangetap $2
CN = $2 origin test CA
[ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
EOF
  cat >"$TLS_DIR/server.cnf" <<EOF
[req]
distinguished_name = dn
prompt = no
[dn]
O = rangetap $2
CN = localhost
[ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1,DNS:*.bench.test
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
  {
    openssl req -x509 -new -config "$TLS_DIR/ca.cnf" -extensions ext -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
      -nodes -keyout "$TLS_DIR/origin-ca.key" -out "$ORIGIN_CA" -days 3 -sha256 &&
    openssl req -new -config "$TLS_DIR/server.cnf" -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
      -nodes -keyout "$TLS_DIR/server.key" -out "$TLS_DIR/server.csr" &&
    openssl x509 -req -in "$TLS_DIR/server.csr" -CA "$ORIGIN_CA" -CAkey "$TLS_DIR/origin-ca.key" \
      -set_serial "0x$(openssl rand -hex 8)" -days 3 -sha256 -extfile "$TLS_DIR/server.cnf" -extensions ext \
      -out "$TLS_DIR/server.pem" &&
    openssl verify -CAfile "$ORIGIN_CA" "$TLS_DIR/server.pem"
  } >"$TLS_DIR/openssl.log" 2>&1 || { cat "$TLS_DIR/openssl.log" >&2; die "openssl could not make the test certificates"; }
}
