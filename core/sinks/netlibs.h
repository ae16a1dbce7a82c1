// SPDX-License-Identifier: MIT
/*
 * The libraries only the network sinks use (libcurl for remote_write and
 * otlp, libmicrohttpd for prometheus, libsnappy for remote_write), opened
 * with dlopen when such a sink opens: a tracer that writes a file maps none
 * of them (nor the 40 libraries libcurl brings: TLS, Kerberos, LDAP, ssh),
 * and the package only suggests them. Callers use the function pointers.
 */
#ifndef CT_SINKS_NETLIBS_H
#define CT_SINKS_NETLIBS_H
#include <stddef.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <snappy-c.h>

struct ct_curl_api {
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	const char *(*easy_strerror)(CURLcode code);
	void (*easy_cleanup)(CURL *c);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

struct ct_mhd_api {
	struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
					   void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
	void (*stop_daemon)(struct MHD_Daemon *d);
	struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *r, const char *header, const char *content);
	enum MHD_Result (*queue_response)(struct MHD_Connection *c, unsigned int status, struct MHD_Response *r);
	void (*destroy_response)(struct MHD_Response *r);
	MHD_socket (*quiesce_daemon)(struct MHD_Daemon *d);
	const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *c,
							       enum MHD_ConnectionInfoType type, ...);
};

struct ct_snappy_api {
	snappy_status (*compress)(const char *input, size_t input_length, char *compressed, size_t *compressed_length);
	size_t (*max_compressed_length)(size_t source_length);
};

extern struct ct_curl_api ct_curl;
extern struct ct_mhd_api ct_mhd;
extern struct ct_snappy_api ct_snappy;

/* Open the library once (later calls return at once); on failure say, for
 * sink `sink` of `type`, which library is missing and which Debian package
 * has it. 0 or -ENOENT. Left open until the tracer exits. */
int ct_netlib_curl(const char *sink, const char *type);
int ct_netlib_mhd(const char *sink, const char *type);
int ct_netlib_snappy(const char *sink, const char *type);
#endif
