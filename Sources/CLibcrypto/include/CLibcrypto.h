#ifndef CLIBCRYPTO_H
#define CLIBCRYPTO_H

#include <stddef.h>
#include <stdint.h>

/* The few things rangetap needs from the system's libcrypto (OpenSSL 3, Debian's libssl-dev):
   SHA-256, EC P-256 keys, and X.509 certificates for its local CA and the leaves it signs.
   Every function that makes something returns NULL (or 0) on failure; clibcrypto_error() then
   describes the first error libcrypto queued on this thread, and clears the queue.
   Buffers these functions return are freed with clibcrypto_free(). */

/* --- SHA-256, incremental ------------------------------------------------------------------ */

/* An incremental SHA-256 (an EVP_MD_CTX). */
typedef struct clibcrypto_sha256 clibcrypto_sha256;

clibcrypto_sha256 *_Nullable clibcrypto_sha256_new(void);
/* A new hasher in the state of `from` (the same bytes hashed so far). */
clibcrypto_sha256 *_Nullable clibcrypto_sha256_copy(const clibcrypto_sha256 *_Nonnull from);
int clibcrypto_sha256_update(clibcrypto_sha256 *_Nonnull hasher, const void *_Nullable bytes, size_t count);
/* Writes the 32-byte digest of the bytes hashed so far; the hasher is not changed. */
int clibcrypto_sha256_digest(const clibcrypto_sha256 *_Nonnull hasher, uint8_t *_Nonnull digest);
void clibcrypto_sha256_free(clibcrypto_sha256 *_Nullable hasher);

/* --- Keys ---------------------------------------------------------------------------------- */

/* A private key (an EVP_PKEY). */
typedef struct clibcrypto_key clibcrypto_key;

/* A new EC P-256 key. */
clibcrypto_key *_Nullable clibcrypto_key_generate_p256(void);
/* A private key from PEM text (PKCS#8 or SEC 1); 1 in *is_p256 when it is an EC P-256 key. */
clibcrypto_key *_Nullable clibcrypto_key_from_pem(const char *_Nonnull pem, size_t length, int *_Nonnull is_p256);
/* The key as PKCS#8 PEM text ("BEGIN PRIVATE KEY"), NUL-terminated, in *pem. */
int clibcrypto_key_pem(const clibcrypto_key *_Nonnull key, char *_Nullable *_Nonnull pem, size_t *_Nonnull length);
void clibcrypto_key_free(clibcrypto_key *_Nullable key);

/* --- Certificates -------------------------------------------------------------------------- */

/* An X.509 certificate (an X509). */
typedef struct clibcrypto_certificate clibcrypto_certificate;

clibcrypto_certificate *_Nullable clibcrypto_certificate_from_pem(const char *_Nonnull pem, size_t length);
/* The certificate's DER bytes in *der. */
int clibcrypto_certificate_der(
    const clibcrypto_certificate *_Nonnull certificate, uint8_t *_Nullable *_Nonnull der, size_t *_Nonnull length);
/* The certificate as PEM text, NUL-terminated, in *pem. */
int clibcrypto_certificate_pem(
    const clibcrypto_certificate *_Nonnull certificate, char *_Nullable *_Nonnull pem, size_t *_Nonnull length);
/* The subject as RFC 2253 text ("CN=...,O=..."), NUL-terminated, in *text. */
int clibcrypto_certificate_subject(const clibcrypto_certificate *_Nonnull certificate, char *_Nullable *_Nonnull text);
/* The end of the validity, in seconds since 1970, in *seconds. */
int clibcrypto_certificate_not_after(const clibcrypto_certificate *_Nonnull certificate, int64_t *_Nonnull seconds);
/* 1 when `key` is the private key of the certificate's public key, 0 when not. */
int clibcrypto_certificate_matches_key(
    const clibcrypto_certificate *_Nonnull certificate, const clibcrypto_key *_Nonnull key);

/* A self-signed CA certificate for `key`: subject and issuer O=organization, CN=common_name
   (UTF-8, NUL-terminated); a random positive 159-bit serial; basicConstraints critical CA:TRUE,
   pathlen:0; keyUsage critical keyCertSign, cRLSign; a subjectKeyIdentifier (SHA-1 of the public
   key); signed ECDSA with SHA-256. */
clibcrypto_certificate *_Nullable clibcrypto_certificate_make_authority(
    const clibcrypto_key *_Nonnull key, const char *_Nonnull organization, const char *_Nonnull common_name,
    int64_t not_before, int64_t not_after);

/* A server certificate for `leaf_key`, issued by `authority` (signed with `authority_key`):
   subject O=organization, CN=common_name; one subjectAltName, an IP address when ip_length is 4
   or 16 (the address bytes in `ip`), else the DNS name `dns_name`; basicConstraints critical
   CA:FALSE; keyUsage critical digitalSignature; extendedKeyUsage serverAuth; the authority's key
   identifier. */
clibcrypto_certificate *_Nullable clibcrypto_certificate_make_leaf(
    const clibcrypto_certificate *_Nonnull authority, const clibcrypto_key *_Nonnull authority_key,
    const clibcrypto_key *_Nonnull leaf_key, const char *_Nonnull organization, const char *_Nonnull common_name,
    const char *_Nullable dns_name, const uint8_t *_Nullable ip, size_t ip_length, int64_t not_before,
    int64_t not_after);
void clibcrypto_certificate_free(clibcrypto_certificate *_Nullable certificate);

/* --- Errors and memory --------------------------------------------------------------------- */

/* The first error libcrypto queued on this thread as text (NUL-terminated, in *text; "no
   detail" when none), and clears the queue. */
void clibcrypto_error(char *_Nullable *_Nonnull text);
void clibcrypto_free(void *_Nullable pointer);

#endif
