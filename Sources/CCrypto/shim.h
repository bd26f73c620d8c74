#pragma once
#include <openssl/evp.h>

// One-shot SHA-256 through EVP (the SHA256() helpers are deprecated in OpenSSL 3).
// Returns 1 on success, as EVP does.
static inline int prefetch_sha256(const void *data, size_t count, unsigned char out[32]) {
    unsigned int size = 0;
    return EVP_Digest(data, count, out, &size, EVP_sha256(), NULL);
}

static inline EVP_MD_CTX *prefetch_sha256_begin(void) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (ctx != NULL && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static inline int prefetch_sha256_update(EVP_MD_CTX *ctx, const void *data, size_t count) {
    return EVP_DigestUpdate(ctx, data, count);
}

/// Writes the digest and frees the context.
static inline int prefetch_sha256_finish(EVP_MD_CTX *ctx, unsigned char out[32]) {
    unsigned int size = 0;
    int rc = EVP_DigestFinal_ex(ctx, out, &size);
    EVP_MD_CTX_free(ctx);
    return rc;
}

/// Frees a context without producing a digest.
static inline void prefetch_sha256_abort(EVP_MD_CTX *ctx) {
    EVP_MD_CTX_free(ctx);
}

// SHA-1, only for naming Lua scripts the way Redis does (EVALSHA).
static inline int prefetch_sha1(const void *data, size_t count, unsigned char out[20]) {
    unsigned int size = 0;
    return EVP_Digest(data, count, out, &size, EVP_sha1(), NULL);
}
