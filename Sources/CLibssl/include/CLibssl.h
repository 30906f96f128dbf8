#ifndef CLIBSSL_H
#define CLIBSSL_H

#include <stddef.h>
#include <stdint.h>

/* TLS from the system's libssl (OpenSSL 3, Debian's libssl-dev), for the TLS channel handler of
   RangeTapTLS: contexts (server or client), and sessions that read ciphertext from memory the
   caller lends and write it into memory the caller lends, so no ciphertext is copied twice and no
   buffer outlives a call.

   A session's input is lent with clibssl_session_set_input() before a call and taken back after
   it: every call consumes all of it (OpenSSL keeps a partial record in its own buffer). Its output
   goes into the region lent with clibssl_session_set_output(); what does not fit goes into a spill
   buffer of the session's own, read with clibssl_session_take_spill() and freed once taken.
   Failures queue reasons, read (and cleared) with clibssl_error_reasons(). Not thread-safe per
   session; contexts may be shared by sessions on several threads. */

/* --- Contexts -------------------------------------------------------------------------------- */

/* An SSL_CTX and what its callbacks need. */
typedef struct clibssl_context clibssl_context;

/* A server context presenting `leaf_der` followed by `chain_der` (may be NULL), signed for by the
   PEM private key `key_pem`; TLS 1.2 or later; offering `alpn` (ALPN's wire format: each protocol
   prefixed by its length; NULL or 0 bytes for none), chosen in the server's order. */
clibssl_context *_Nullable clibssl_server_context(
    const uint8_t *_Nonnull leaf_der, size_t leaf_length, const uint8_t *_Nullable chain_der, size_t chain_length,
    const char *_Nonnull key_pem, size_t key_length, const uint8_t *_Nullable alpn, size_t alpn_length);

/* A client context. With `verify`, the peer's chain must verify against the system's CAs and those
   in `extra_ca_file` (PEM, may be NULL), and its name against the session's; without, nothing is
   checked. Offers `alpn` as above; `maximum_version` (0x0303 TLS 1.2, 0x0304 TLS 1.3) caps the
   version when not 0. */
clibssl_context *_Nullable clibssl_client_context(
    int verify, const char *_Nullable extra_ca_file, const uint8_t *_Nullable alpn, size_t alpn_length,
    int maximum_version);

/* Called with each secret line (NSS key log format, no newline) of the context's sessions. */
typedef void (*clibssl_key_log_fn)(void *_Nonnull argument, const char *_Nonnull line);
/* Called with the server name a client sent (SNI): returns the context whose certificate to
   present instead, or NULL to keep this one; sets *failed to refuse the handshake. */
typedef clibssl_context *_Nullable (*clibssl_server_name_fn)(
    void *_Nonnull argument, const char *_Nonnull name, int *_Nonnull failed);
/* Releases a callback's argument when the context is freed (after its last session). */
typedef void (*clibssl_release_fn)(void *_Nonnull argument);

/* Set once, before the context's first session. */
void clibssl_context_set_key_log(
    clibssl_context *_Nonnull context, clibssl_key_log_fn _Nonnull callback, void *_Nonnull argument,
    clibssl_release_fn _Nonnull release);
void clibssl_context_set_server_name(
    clibssl_context *_Nonnull context, clibssl_server_name_fn _Nonnull callback, void *_Nonnull argument,
    clibssl_release_fn _Nonnull release);
/* Takes one more reference (a server-name callback hands one over with the context it returns). */
void clibssl_context_retain(clibssl_context *_Nonnull context);
/* Drops the caller's reference; sessions keep theirs. */
void clibssl_context_free(clibssl_context *_Nullable context);

/* --- Sessions -------------------------------------------------------------------------------- */

/* One TLS connection's state. */
typedef struct clibssl_session clibssl_session;

/* A session of `context`: the server side, or the client side sending `server_name` (SNI, left
   out for an IP literal) and, when its context verifies, checking the certificate against it. */
clibssl_session *_Nullable clibssl_session_new(
    clibssl_context *_Nonnull context, int server, const char *_Nullable server_name);
void clibssl_session_free(clibssl_session *_Nullable session);

/* Lends input (and clears the thread's error queue when `bytes` is not NULL): once per read event. */
void clibssl_session_set_input(clibssl_session *_Nonnull session, const uint8_t *_Nullable bytes, size_t length);
void clibssl_session_set_output(clibssl_session *_Nonnull session, uint8_t *_Nullable bytes, size_t capacity);
/* Bytes written into the lent output region. */
size_t clibssl_session_output_used(const clibssl_session *_Nonnull session);
/* Bytes in the spill buffer. */
size_t clibssl_session_spill_length(const clibssl_session *_Nonnull session);
/* Copies the spill buffer into `bytes` (at least clibssl_session_spill_length() bytes) and frees it. */
void clibssl_session_take_spill(clibssl_session *_Nonnull session, uint8_t *_Nonnull bytes);

/* What a call came to. */
enum {
    CLIBSSL_DONE = 1,        /* the handshake finished, the bytes were written, or bytes were read */
    CLIBSSL_WANT_INPUT = 0,  /* more input is needed */
    CLIBSSL_CLOSED = 2,      /* the peer sent close_notify */
    CLIBSSL_FAILED = -1,     /* an error: clibssl_error_reasons() says which */
};

/* Drives the handshake. */
int clibssl_session_handshake(clibssl_session *_Nonnull session);
/* Decrypts into `bytes` (up to `capacity`); *count is what was read. */
int clibssl_session_read(
    clibssl_session *_Nonnull session, uint8_t *_Nonnull bytes, size_t capacity, size_t *_Nonnull count);
/* Encrypts `length` bytes (all of them, in records of up to 16 KiB). */
int clibssl_session_write(clibssl_session *_Nonnull session, const uint8_t *_Nullable bytes, size_t length);
/* Writes close_notify. */
int clibssl_session_shutdown(clibssl_session *_Nonnull session);

/* After the handshake: the version (0x0303 TLS 1.2, 0x0304 TLS 1.3) and the protocol ALPN chose
   (NULL when none). */
int clibssl_session_version(const clibssl_session *_Nonnull session);
const uint8_t *_Nullable clibssl_session_alpn(const clibssl_session *_Nonnull session, size_t *_Nonnull length);
/* Why the peer's certificate did not verify (NULL when it did, or was not checked); 1 in
   *name_mismatch when it is because it does not name the host. */
const char *_Nullable clibssl_session_verify_error(
    const clibssl_session *_Nonnull session, int *_Nonnull name_mismatch);

/* The reasons libssl queued on this thread, as upper-case codes separated by spaces
   ("TLSV1_ALERT_UNKNOWN_CA"), NUL-terminated in `text` (cut to `capacity`); clears the queue.
   Returns how many there were. */
int clibssl_error_reasons(char *_Nonnull text, size_t capacity);

#endif
