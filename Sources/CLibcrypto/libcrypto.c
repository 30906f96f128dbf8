#include "CLibcrypto.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The opaque types are libcrypto's own, under names of this shim. */
#define HASHER(h) ((EVP_MD_CTX *)(h))
#define KEY(k) ((EVP_PKEY *)(k))
#define CERT(c) ((X509 *)(c))

/* --- SHA-256 --------------------------------------------------------------------------------- */

clibcrypto_sha256 *clibcrypto_sha256_new(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return NULL;
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        return NULL;
    }
    return (clibcrypto_sha256 *)ctx;
}

clibcrypto_sha256 *clibcrypto_sha256_copy(const clibcrypto_sha256 *from) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx == NULL) return NULL;
    if (EVP_MD_CTX_copy_ex(ctx, (const EVP_MD_CTX *)from) != 1) {
        EVP_MD_CTX_free(ctx);
        return NULL;
    }
    return (clibcrypto_sha256 *)ctx;
}

int clibcrypto_sha256_update(clibcrypto_sha256 *hasher, const void *bytes, size_t count) {
    if (count == 0) return 1;
    return EVP_DigestUpdate(HASHER(hasher), bytes, count);
}

int clibcrypto_sha256_digest(const clibcrypto_sha256 *hasher, uint8_t *digest) {
    /* Finishing consumes a context: finish a copy, so the hasher can go on. */
    EVP_MD_CTX *copy = EVP_MD_CTX_new();
    if (copy == NULL) return 0;
    unsigned int length = 0;
    int ok = EVP_MD_CTX_copy_ex(copy, (const EVP_MD_CTX *)hasher) == 1
        && EVP_DigestFinal_ex(copy, digest, &length) == 1 && length == 32;
    EVP_MD_CTX_free(copy);
    return ok;
}

void clibcrypto_sha256_free(clibcrypto_sha256 *hasher) { EVP_MD_CTX_free(HASHER(hasher)); }

/* --- Memory BIOs ----------------------------------------------------------------------------- */

/* The bytes written to `bio`, NUL-terminated, in a new buffer; frees the BIO. */
static int take_bio(BIO *bio, char **text, size_t *length) {
    char *data = NULL;
    long count = BIO_get_mem_data(bio, &data);
    int ok = 0;
    if (count >= 0) {
        char *copy = malloc((size_t)count + 1);
        if (copy != NULL) {
            memcpy(copy, data, (size_t)count);
            copy[count] = 0;
            *text = copy;
            if (length != NULL) *length = (size_t)count;
            ok = 1;
        }
    }
    BIO_free(bio);
    return ok;
}

/* --- Keys ------------------------------------------------------------------------------------ */

clibcrypto_key *clibcrypto_key_generate_p256(void) { return (clibcrypto_key *)EVP_EC_gen("P-256"); }

static int is_p256(const EVP_PKEY *key) {
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return 0;
    char group[64];
    size_t length = 0;
    if (EVP_PKEY_get_utf8_string_param(key, "group", group, sizeof group, &length) != 1) return 0;
    return strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0;
}

clibcrypto_key *clibcrypto_key_from_pem(const char *pem, size_t length, int *p256) {
    *p256 = 0;
    if (length > INT32_MAX) return NULL;
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) return NULL;
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (key != NULL) *p256 = is_p256(key);
    return (clibcrypto_key *)key;
}

int clibcrypto_key_pem(const clibcrypto_key *key, char **pem, size_t *length) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return 0;
    if (PEM_write_bio_PrivateKey(bio, KEY(key), NULL, NULL, 0, NULL, NULL) != 1) {
        BIO_free(bio);
        return 0;
    }
    return take_bio(bio, pem, length);
}

void clibcrypto_key_free(clibcrypto_key *key) { EVP_PKEY_free(KEY(key)); }

/* --- Certificates ---------------------------------------------------------------------------- */

clibcrypto_certificate *clibcrypto_certificate_from_pem(const char *pem, size_t length) {
    if (length > INT32_MAX) return NULL;
    BIO *bio = BIO_new_mem_buf(pem, (int)length);
    if (bio == NULL) return NULL;
    X509 *certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return (clibcrypto_certificate *)certificate;
}

int clibcrypto_certificate_der(const clibcrypto_certificate *certificate, uint8_t **der, size_t *length) {
    unsigned char *out = NULL;
    int count = i2d_X509(CERT(certificate), &out);
    if (count <= 0) return 0;
    uint8_t *copy = malloc((size_t)count);
    if (copy != NULL) memcpy(copy, out, (size_t)count);
    OPENSSL_free(out);
    if (copy == NULL) return 0;
    *der = copy;
    *length = (size_t)count;
    return 1;
}

int clibcrypto_certificate_pem(const clibcrypto_certificate *certificate, char **pem, size_t *length) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return 0;
    if (PEM_write_bio_X509(bio, CERT(certificate)) != 1) {
        BIO_free(bio);
        return 0;
    }
    return take_bio(bio, pem, length);
}

int clibcrypto_certificate_subject(const clibcrypto_certificate *certificate, char **text) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return 0;
    unsigned long flags = XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
    if (X509_NAME_print_ex(bio, X509_get_subject_name(CERT(certificate)), 0, flags) < 0) {
        BIO_free(bio);
        return 0;
    }
    return take_bio(bio, text, NULL);
}

int clibcrypto_certificate_not_after(const clibcrypto_certificate *certificate, int64_t *seconds) {
    const ASN1_TIME *end = X509_get0_notAfter(CERT(certificate));
    struct tm tm;
    if (end == NULL || ASN1_TIME_to_tm(end, &tm) != 1) return 0;
    *seconds = (int64_t)timegm(&tm);
    return 1;
}

int clibcrypto_certificate_matches_key(const clibcrypto_certificate *certificate, const clibcrypto_key *key) {
    int matches = X509_check_private_key(CERT(certificate), KEY(key)) == 1;
    ERR_clear_error();
    return matches;
}

/* Appends O=organization, CN=common_name to `name`. */
static int add_names(X509_NAME *name, const char *organization, const char *common_name) {
    return X509_NAME_add_entry_by_NID(name, NID_organizationName, MBSTRING_UTF8,
               (const unsigned char *)organization, -1, -1, 0) == 1
        && X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8,
               (const unsigned char *)common_name, -1, -1, 0) == 1;
}

/* Version 3, a random positive serial below 2^159, the validity, the public key of `key`. */
static X509 *new_certificate(const clibcrypto_key *key, int64_t not_before, int64_t not_after) {
    X509 *x = X509_new();
    BIGNUM *serial = BN_new();
    int ok = x != NULL && serial != NULL && X509_set_version(x, X509_VERSION_3) == 1
        && BN_rand(serial, 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ODD) == 1
        && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(x)) != NULL
        && ASN1_TIME_set(X509_getm_notBefore(x), (time_t)not_before) != NULL
        && ASN1_TIME_set(X509_getm_notAfter(x), (time_t)not_after) != NULL
        && X509_set_pubkey(x, KEY(key)) == 1;
    BN_free(serial);
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* Adds the extension `nid` with the value `value` (OpenSSL's configuration syntax, only ever a
   constant of this file: never text from a peer). */
static int add_extension(X509 *x, X509V3_CTX *ctx, int nid, const char *value) {
    X509_EXTENSION *extension = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
    if (extension == NULL) return 0;
    int ok = X509_add_ext(x, extension, -1) == 1;
    X509_EXTENSION_free(extension);
    return ok;
}

clibcrypto_certificate *clibcrypto_certificate_make_authority(
    const clibcrypto_key *key, const char *organization, const char *common_name, int64_t not_before,
    int64_t not_after) {
    X509 *x = new_certificate(key, not_before, not_after);
    if (x == NULL) return NULL;
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    int ok = add_names(X509_get_subject_name(x), organization, common_name)
        && X509_set_issuer_name(x, X509_get_subject_name(x)) == 1
        && add_extension(x, &ctx, NID_basic_constraints, "critical,CA:TRUE,pathlen:0")
        && add_extension(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign")
        && add_extension(x, &ctx, NID_subject_key_identifier, "hash")
        && X509_sign(x, KEY(key), EVP_sha256()) > 0;
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return (clibcrypto_certificate *)x;
}

/* The one subjectAltName: an IP address (4 or 16 bytes) or a DNS name. Built as values, not
   through the configuration syntax, so no name can add entries of its own. */
static int add_alternative_name(X509 *x, const char *dns_name, const uint8_t *ip, size_t ip_length) {
    GENERAL_NAMES *names = GENERAL_NAMES_new();
    GENERAL_NAME *name = GENERAL_NAME_new();
    int ok = 0;
    if (names == NULL || name == NULL) goto done;
    if (ip != NULL && (ip_length == 4 || ip_length == 16)) {
        ASN1_OCTET_STRING *address = ASN1_OCTET_STRING_new();
        if (address == NULL || ASN1_OCTET_STRING_set(address, ip, (int)ip_length) != 1) {
            ASN1_OCTET_STRING_free(address);
            goto done;
        }
        GENERAL_NAME_set0_value(name, GEN_IPADD, address);
    } else if (dns_name != NULL) {
        ASN1_IA5STRING *dns = ASN1_IA5STRING_new();
        if (dns == NULL || ASN1_STRING_set(dns, dns_name, -1) != 1) {
            ASN1_IA5STRING_free(dns);
            goto done;
        }
        GENERAL_NAME_set0_value(name, GEN_DNS, dns);
    } else {
        goto done;
    }
    if (sk_GENERAL_NAME_push(names, name) <= 0) goto done;
    name = NULL; /* owned by names now */
    ok = X509_add1_ext_i2d(x, NID_subject_alt_name, names, 0, X509V3_ADD_DEFAULT) == 1;
done:
    GENERAL_NAME_free(name);
    GENERAL_NAMES_free(names);
    return ok;
}

clibcrypto_certificate *clibcrypto_certificate_make_leaf(
    const clibcrypto_certificate *authority, const clibcrypto_key *authority_key, const clibcrypto_key *leaf_key,
    const char *organization, const char *common_name, const char *dns_name, const uint8_t *ip, size_t ip_length,
    int64_t not_before, int64_t not_after) {
    X509 *x = new_certificate(leaf_key, not_before, not_after);
    if (x == NULL) return NULL;
    X509V3_CTX ctx;
    X509V3_set_ctx(&ctx, CERT(authority), x, NULL, NULL, 0);
    int ok = add_names(X509_get_subject_name(x), organization, common_name)
        && X509_set_issuer_name(x, X509_get_subject_name(CERT(authority))) == 1
        && add_extension(x, &ctx, NID_basic_constraints, "critical,CA:FALSE")
        && add_extension(x, &ctx, NID_key_usage, "critical,digitalSignature")
        && add_extension(x, &ctx, NID_ext_key_usage, "serverAuth")
        && add_alternative_name(x, dns_name, ip, ip_length)
        && add_extension(x, &ctx, NID_authority_key_identifier, "keyid:always")
        && X509_sign(x, KEY(authority_key), EVP_sha256()) > 0;
    if (!ok) {
        X509_free(x);
        return NULL;
    }
    return (clibcrypto_certificate *)x;
}

void clibcrypto_certificate_free(clibcrypto_certificate *certificate) { X509_free(CERT(certificate)); }

/* --- Errors and memory ----------------------------------------------------------------------- */

void clibcrypto_error(char **text) {
    unsigned long code = ERR_get_error();
    char buffer[256];
    if (code == 0) {
        snprintf(buffer, sizeof buffer, "no detail");
    } else {
        ERR_error_string_n(code, buffer, sizeof buffer);
    }
    ERR_clear_error();
    *text = strdup(buffer);
}

void clibcrypto_free(void *pointer) { free(pointer); }
