# Shared helpers for the scripts in tools/ (source it). Everything on 127.0.0.1.

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Waits (at most 10 s) until something accepts connections on 127.0.0.1:PORT.
wait_port() { for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; echo "nothing listens on $1" >&2; return 1; }

# write_nginx_conf DIR PORT ROOT [EXTRA_SERVER_DIRECTIVES]: a foreground, single-process nginx
# config in DIR serving ROOT on 127.0.0.1:PORT, logs and temp files in DIR. Start it with
#   nginx -c DIR/nginx.conf -p DIR -e DIR/error.log &
write_nginx_conf() {
  local dir=$1 port=$2 www=$3 extra=${4:-}
  mkdir -p "$dir"
  cat > "$dir/nginx.conf" <<CONF
daemon off; master_process off; pid $dir/nginx.pid; error_log $dir/error.log;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir; proxy_temp_path $dir; fastcgi_temp_path $dir; uwsgi_temp_path $dir; scgi_temp_path $dir;
  types { video/mp4 mp4; }
  server { listen 127.0.0.1:$port; root $www; $extra }
}
CONF
}
