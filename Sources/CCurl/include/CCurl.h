#ifndef CCURL_H
#define CCURL_H

#include <curl/curl.h>
#include <stddef.h>

/* Fixed-arity wrappers over libcurl's variadic calls: Swift never calls a variadic function. */

typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value);

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value);

/* A share handle holding TLS sessions (CURL_LOCK_DATA_SSL_SESSION), or NULL. No lock functions:
   use it from one thread only. */
CURLSH *ccurl_share_ssl_sessions(void);

/* Macros turned into constants. */
extern const size_t ccurl_writefunc_pause;
extern const int ccurl_pause_cont;
extern const int ccurl_pause_recv;
extern const int ccurl_pause_send;
extern const size_t ccurl_readfunc_pause;
extern const size_t ccurl_readfunc_abort;
extern const long ccurl_http_version_1_1;
extern const long ccurl_http_version_1_0;
extern const long ccurl_http_version_2tls;
extern const long ccurl_http_version_2_prior_knowledge;
extern const long ccurl_pipe_multiplex;
extern const long ccurl_pipe_nothing;
extern const long ccurl_global_default;

/* The easy handle a CURLMsg is about and its result, without touching the union from Swift. */
CURL *ccurl_msg_easy_handle(const CURLMsg *msg);
CURLcode ccurl_msg_result(const CURLMsg *msg);
int ccurl_msg_is_done(const CURLMsg *msg);

#endif
