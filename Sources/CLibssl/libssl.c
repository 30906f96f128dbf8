#include "CLibssl.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct clibssl_context {
    SSL_CTX *ctx;
    int verify;
    uint8_t *alpn;
    size_t alpn_length;
    clibssl_key_log_fn key_log;
    void *key_log_argument;
    clibssl_release_fn key_log_release;
    clibssl_server_name_fn server_name;
    void *server_name_argument;
    clibssl_release_fn server_name_release;
};

struct clibssl_session {
    SSL *ssl;
    const uint8_t *input;
    size_t input_length;
    uint8_t *output;
    size_t output_capacity;
    size_t output_used;
    uint8_t *spill;
    size_t spill_length;
    size_t spill_capacity;
};

/* --- Once per process: the lending BIO and the context's ex_data slot ------------------------ */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static BIO_METHOD *lend_method;
static int context_index = -1;

/* The context's own data goes when OpenSSL frees the SSL_CTX, after its last session. */
static void context_data_free(void *parent, void *pointer, CRYPTO_EX_DATA *data, int index, long argl, void *argp) {
    (void)parent, (void)data, (void)index, (void)argl, (void)argp;
    struct clibssl_context *c = pointer;
    if (c == NULL) return;
    if (c->key_log_release) c->key_log_release(c->key_log_argument);
    if (c->server_name_release) c->server_name_release(c->server_name_argument);
    free(c->alpn);
    free(c);
}

static int lend_write(BIO *bio, const char *data, int length) {
    struct clibssl_session *s = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (length <= 0) return 0;
    size_t n = (size_t)length;
    if (s->spill_length == 0 && s->output_used < s->output_capacity) {
        size_t room = s->output_capacity - s->output_used;
        size_t k = n < room ? n : room;
        memcpy(s->output + s->output_used, data, k);
        s->output_used += k;
        data += k;
        n -= k;
    }
    if (n > 0) {
        if (s->spill_length + n > s->spill_capacity) {
            size_t capacity = s->spill_capacity ? s->spill_capacity : 4096;
            while (capacity < s->spill_length + n) capacity *= 2;
            uint8_t *grown = realloc(s->spill, capacity);
            if (grown == NULL) return -1;
            s->spill = grown;
            s->spill_capacity = capacity;
        }
        memcpy(s->spill + s->spill_length, data, n);
        s->spill_length += n;
    }
    return length;
}

static int lend_read(BIO *bio, char *out, int length) {
    struct clibssl_session *s = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    if (length <= 0) return 0;
    if (s->input_length == 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t k = (size_t)length < s->input_length ? (size_t)length : s->input_length;
    memcpy(out, s->input, k);
    s->input += k;
    s->input_length -= k;
    return (int)k;
}

static long lend_ctrl(BIO *bio, int command, long number, void *pointer) {
    (void)number, (void)pointer;
    struct clibssl_session *s = BIO_get_data(bio);
    switch (command) {
    case BIO_CTRL_FLUSH:
        return 1;
    case BIO_CTRL_PENDING:
        return s ? (long)s->input_length : 0;
    default:
        return 0;
    }
}

static int lend_create(BIO *bio) {
    BIO_set_init(bio, 1);
    return 1;
}

static int lend_destroy(BIO *bio) {
    (void)bio;
    return 1;
}

static void initialize(void) {
    lend_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "rangetap lent memory");
    BIO_meth_set_write(lend_method, lend_write);
    BIO_meth_set_read(lend_method, lend_read);
    BIO_meth_set_ctrl(lend_method, lend_ctrl);
    BIO_meth_set_create(lend_method, lend_create);
    BIO_meth_set_destroy(lend_method, lend_destroy);
    context_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, context_data_free);
}

/* --- Contexts -------------------------------------------------------------------------------- */

static int select_alpn(
    SSL *ssl, const unsigned char **out, unsigned char *out_length, const unsigned char *in, unsigned int in_length,
    void *argument) {
    (void)ssl;
    struct clibssl_context *c = argument;
    unsigned char *chosen = NULL;
    unsigned char chosen_length = 0;
    if (SSL_select_next_proto(&chosen, &chosen_length, c->alpn, (unsigned int)c->alpn_length, in, in_length)
        != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = chosen;
    *out_length = chosen_length;
    return SSL_TLSEXT_ERR_OK;
}

static void log_key(const SSL *ssl, const char *line) {
    struct clibssl_context *c = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), context_index);
    if (c != NULL && c->key_log != NULL) c->key_log(c->key_log_argument, line);
}

static int choose_by_server_name(SSL *ssl, int *alert, void *argument) {
    struct clibssl_context *c = argument;
    const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    if (name == NULL || c->server_name == NULL) return SSL_TLSEXT_ERR_OK;
    int failed = 0;
    struct clibssl_context *other = c->server_name(c->server_name_argument, name, &failed);
    if (failed) {
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    if (other == NULL) return SSL_TLSEXT_ERR_OK;
    /* The callback handed over a reference of its own, dropped once the session holds one. */
    if (SSL_set_SSL_CTX(ssl, other->ctx) == NULL) {
        SSL_CTX_free(other->ctx);
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    SSL_CTX_free(other->ctx);
    return SSL_TLSEXT_ERR_OK;
}

static struct clibssl_context *context_new(const SSL_METHOD *method, const uint8_t *alpn, size_t alpn_length) {
    pthread_once(&once, initialize);
    if (lend_method == NULL || context_index < 0) return NULL;
    SSL_CTX *ctx = SSL_CTX_new(method);
    if (ctx == NULL) return NULL;
    struct clibssl_context *c = calloc(1, sizeof *c);
    if (c == NULL) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    c->ctx = ctx;
    if (alpn != NULL && alpn_length > 0) {
        c->alpn = malloc(alpn_length);
        if (c->alpn == NULL) {
            free(c);
            SSL_CTX_free(ctx);
            return NULL;
        }
        memcpy(c->alpn, alpn, alpn_length);
        c->alpn_length = alpn_length;
    }
    /* From here on the SSL_CTX owns c. */
    if (SSL_CTX_set_ex_data(ctx, context_index, c) != 1) {
        free(c->alpn);
        free(c);
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION);
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return c;
}

clibssl_context *clibssl_server_context(
    const uint8_t *leaf_der, size_t leaf_length, const uint8_t *chain_der, size_t chain_length, const char *key_pem,
    size_t key_length, const uint8_t *alpn, size_t alpn_length) {
    struct clibssl_context *c = context_new(TLS_server_method(), alpn, alpn_length);
    if (c == NULL) return NULL;
    SSL_CTX *ctx = c->ctx;
    const unsigned char *p = leaf_der;
    X509 *leaf = d2i_X509(NULL, &p, (long)leaf_length);
    int ok = leaf != NULL && SSL_CTX_use_certificate(ctx, leaf) == 1;
    X509_free(leaf);
    if (ok && chain_der != NULL && chain_length > 0) {
        p = chain_der;
        X509 *chain = d2i_X509(NULL, &p, (long)chain_length);
        ok = chain != NULL && SSL_CTX_add1_chain_cert(ctx, chain) == 1;
        X509_free(chain);
    }
    if (ok) {
        BIO *bio = BIO_new_mem_buf(key_pem, (int)key_length);
        EVP_PKEY *key = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
        ok = key != NULL && SSL_CTX_use_PrivateKey(ctx, key) == 1 && SSL_CTX_check_private_key(ctx) == 1;
        EVP_PKEY_free(key);
        BIO_free(bio);
    }
    /* AES-128-GCM first, in the server's order, as BoringSSL chooses: libssl's own default puts
       AES-256 first, which costs about a third more CPU per byte for no protection a capture
       needs. The leaf is an EC key, so TLS 1.2 suites are ECDSA ones. */
    if (ok) ok = SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384") == 1;
    if (ok)
        ok = SSL_CTX_set_cipher_list(
                 ctx, "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384:"
                      "ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES256-SHA")
             == 1;
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (!ok) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (c->alpn != NULL) SSL_CTX_set_alpn_select_cb(ctx, select_alpn, c);
    return c;
}

clibssl_context *clibssl_client_context(
    int verify, const char *extra_ca_file, const uint8_t *alpn, size_t alpn_length, int maximum_version) {
    struct clibssl_context *c = context_new(TLS_client_method(), alpn, alpn_length);
    if (c == NULL) return NULL;
    SSL_CTX *ctx = c->ctx;
    c->verify = verify;
    int ok = 1;
    if (verify) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        ok = SSL_CTX_set_default_verify_paths(ctx) == 1;
        if (ok && extra_ca_file != NULL) ok = SSL_CTX_load_verify_locations(ctx, extra_ca_file, NULL) == 1;
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
    }
    if (ok && maximum_version != 0) ok = SSL_CTX_set_max_proto_version(ctx, maximum_version) == 1;
    /* SSL_CTX_set_alpn_protos returns 0 on success. */
    if (ok && c->alpn != NULL) ok = SSL_CTX_set_alpn_protos(ctx, c->alpn, (unsigned int)c->alpn_length) == 0;
    if (!ok) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    return c;
}

void clibssl_context_set_key_log(
    clibssl_context *c, clibssl_key_log_fn callback, void *argument, clibssl_release_fn release) {
    c->key_log = callback;
    c->key_log_argument = argument;
    c->key_log_release = release;
    SSL_CTX_set_keylog_callback(c->ctx, log_key);
}

void clibssl_context_set_server_name(
    clibssl_context *c, clibssl_server_name_fn callback, void *argument, clibssl_release_fn release) {
    c->server_name = callback;
    c->server_name_argument = argument;
    c->server_name_release = release;
    SSL_CTX_set_tlsext_servername_callback(c->ctx, choose_by_server_name);
    SSL_CTX_set_tlsext_servername_arg(c->ctx, c);
}

void clibssl_context_retain(clibssl_context *c) { SSL_CTX_up_ref(c->ctx); }

void clibssl_context_free(clibssl_context *c) {
    if (c != NULL) SSL_CTX_free(c->ctx);
}

/* --- Sessions -------------------------------------------------------------------------------- */

static int is_ip_literal(const char *name) {
    unsigned char address[16];
    return inet_pton(AF_INET, name, address) == 1 || inet_pton(AF_INET6, name, address) == 1;
}

clibssl_session *clibssl_session_new(clibssl_context *c, int server, const char *server_name) {
    struct clibssl_session *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->ssl = SSL_new(c->ctx);
    BIO *bio = s->ssl ? BIO_new(lend_method) : NULL;
    if (bio == NULL) {
        SSL_free(s->ssl);
        free(s);
        return NULL;
    }
    BIO_set_data(bio, s);
    SSL_set_bio(s->ssl, bio, bio);
    if (server) {
        SSL_set_accept_state(s->ssl);
        return s;
    }
    SSL_set_connect_state(s->ssl);
    int ok = 1;
    if (server_name != NULL) {
        if (is_ip_literal(server_name)) {
            if (c->verify) ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(s->ssl), server_name) == 1;
        } else {
            ok = SSL_set_tlsext_host_name(s->ssl, server_name) == 1;
            if (ok && c->verify) ok = SSL_set1_host(s->ssl, server_name) == 1;
        }
    }
    if (!ok) {
        clibssl_session_free(s);
        return NULL;
    }
    return s;
}

void clibssl_session_free(clibssl_session *s) {
    if (s == NULL) return;
    SSL_free(s->ssl);
    free(s->spill);
    free(s);
}

void clibssl_session_set_input(clibssl_session *s, const uint8_t *bytes, size_t length) {
    /* SSL_get_error() reads the thread's error queue, which must be empty before a call whose
       "want more input" it is to tell from a failure: cleared once per read event rather than
       before every call (clearing cost about 5 % of an HTTP/2 download's CPU). A write that
       returns success needs no clear, and a failure drains the queue (clibssl_error_reasons). */
    if (bytes != NULL) ERR_clear_error();
    s->input = bytes;
    s->input_length = bytes ? length : 0;
}

void clibssl_session_set_output(clibssl_session *s, uint8_t *bytes, size_t capacity) {
    s->output = bytes;
    s->output_capacity = bytes ? capacity : 0;
    s->output_used = 0;
}

size_t clibssl_session_output_used(const clibssl_session *s) { return s->output_used; }

size_t clibssl_session_spill_length(const clibssl_session *s) { return s->spill_length; }

void clibssl_session_take_spill(clibssl_session *s, uint8_t *bytes) {
    if (s->spill_length > 0) memcpy(bytes, s->spill, s->spill_length);
    free(s->spill);
    s->spill = NULL;
    s->spill_length = 0;
    s->spill_capacity = 0;
}

static int outcome(clibssl_session *s, int result) {
    switch (SSL_get_error(s->ssl, result)) {
    case SSL_ERROR_WANT_READ:
        return CLIBSSL_WANT_INPUT;
    case SSL_ERROR_ZERO_RETURN:
        return CLIBSSL_CLOSED;
    default:
        return CLIBSSL_FAILED;
    }
}

int clibssl_session_handshake(clibssl_session *s) {
    ERR_clear_error();
    int result = SSL_do_handshake(s->ssl);
    return result == 1 ? CLIBSSL_DONE : outcome(s, result);
}

int clibssl_session_read(clibssl_session *s, uint8_t *bytes, size_t capacity, size_t *count) {
    *count = 0;
    int result = SSL_read_ex(s->ssl, bytes, capacity, count);
    return result == 1 ? CLIBSSL_DONE : outcome(s, result);
}

int clibssl_session_write(clibssl_session *s, const uint8_t *bytes, size_t length) {
    if (length == 0) return CLIBSSL_DONE;
    size_t written = 0;
    int result = SSL_write_ex(s->ssl, bytes, length, &written);
    return result == 1 ? CLIBSSL_DONE : outcome(s, result);
}

int clibssl_session_shutdown(clibssl_session *s) {
    ERR_clear_error();
    return SSL_shutdown(s->ssl) >= 0 ? CLIBSSL_DONE : CLIBSSL_FAILED;
}

int clibssl_session_version(const clibssl_session *s) { return SSL_version(s->ssl); }

const uint8_t *clibssl_session_alpn(const clibssl_session *s, size_t *length) {
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(s->ssl, &p, &n);
    *length = n;
    return n > 0 ? p : NULL;
}

const char *clibssl_session_verify_error(const clibssl_session *s, int *name_mismatch) {
    long result = SSL_get_verify_result(s->ssl);
    *name_mismatch = result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH;
    return result == X509_V_OK ? NULL : X509_verify_cert_error_string(result);
}

int clibssl_error_reasons(char *text, size_t capacity) {
    size_t used = 0;
    int count = 0;
    if (capacity > 0) text[0] = 0;
    unsigned long code;
    while ((code = ERR_get_error()) != 0) {
        count++;
        const char *reason = ERR_reason_error_string(code);
        char fallback[32];
        if (reason == NULL) {
            snprintf(fallback, sizeof fallback, "REASON_%d", ERR_GET_REASON(code));
            reason = fallback;
        }
        if (used > 0 && used + 1 < capacity) text[used++] = ' ';
        for (const char *r = reason; *r && used + 1 < capacity; r++)
            text[used++] = *r == ' ' ? '_' : (char)toupper((unsigned char)*r);
        if (capacity > 0) text[used] = 0;
    }
    return count;
}
