#include "CCurl.h"

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode ccurl_easy_setopt_data_callback(CURL *handle, CURLoption option, ccurl_data_callback value) { return curl_easy_setopt(handle, option, value); }

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }

CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) { return curl_multi_setopt(handle, option, value); }

CURLSH *ccurl_share_ssl_sessions(void) {
    CURLSH *share = curl_share_init();
    if (share && curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION) != CURLSHE_OK) {
        curl_share_cleanup(share);
        return NULL;
    }
    return share;
}

const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
const int ccurl_pause_cont = CURLPAUSE_CONT;
const int ccurl_pause_recv = CURLPAUSE_RECV;
const int ccurl_pause_send = CURLPAUSE_SEND;
const size_t ccurl_readfunc_pause = CURL_READFUNC_PAUSE;
const size_t ccurl_readfunc_abort = CURL_READFUNC_ABORT;
const long ccurl_http_version_1_1 = CURL_HTTP_VERSION_1_1;
const long ccurl_http_version_1_0 = CURL_HTTP_VERSION_1_0;
const long ccurl_http_version_2tls = CURL_HTTP_VERSION_2TLS;
const long ccurl_http_version_2_prior_knowledge = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
const long ccurl_pipe_multiplex = CURLPIPE_MULTIPLEX;
const long ccurl_pipe_nothing = CURLPIPE_NOTHING;
const long ccurl_global_default = CURL_GLOBAL_DEFAULT;

CURL *ccurl_msg_easy_handle(const CURLMsg *msg) { return msg->easy_handle; }
CURLcode ccurl_msg_result(const CURLMsg *msg) { return msg->data.result; }
int ccurl_msg_is_done(const CURLMsg *msg) { return msg->msg == CURLMSG_DONE; }
