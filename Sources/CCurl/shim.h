#pragma once
#include <curl/curl.h>

// Swift does not import C variadic functions: one typed wrapper per argument kind.

static inline CURLcode prefetch_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode prefetch_easy_setopt_offt(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode prefetch_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode prefetch_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode prefetch_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*prefetch_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode prefetch_easy_setopt_data_callback(CURL *h, CURLoption o, prefetch_data_callback v) { return curl_easy_setopt(h, o, v); }

typedef int (*prefetch_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode prefetch_easy_setopt_xferinfo(CURL *h, prefetch_xferinfo_callback v) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v); }

static inline CURLcode prefetch_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode prefetch_easy_getinfo_offt(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode prefetch_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode prefetch_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode prefetch_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURLMsg.data is a union; reading .result from Swift is awkward.
static inline CURLcode prefetch_msg_result(CURLMsg *msg) { return msg->data.result; }

// CURLAUTH_BASIC is a macro with a cast Swift does not import.
static const long prefetch_auth_basic = (long)CURLAUTH_BASIC;
