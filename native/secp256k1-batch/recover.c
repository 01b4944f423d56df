// Batched ECDSA public-key recovery on libsecp256k1 (the source the `secp256k1` npm package ships,
// compiled here as one translation unit so its internal group and scalar routines are reachable).
// Each recovery needs 1/r and the result's 1/z; over a batch both become one inversion each
// (Montgomery's trick), the rest is libsecp256k1's own recovery (secp256k1_ecdsa_sig_recover).
// The results are the same as one `secp256k1_ecdsa_recover` per signature.
#include <stdlib.h>
#include <string.h>
#include <node_api.h>
#include "secp256k1.c"

/* A job: digest (32) || r (32) || s (32) || recid (1). A result: ok (1) || x (32) || y (32). */
#define JOB 97
#define OUT 65

static secp256k1_context *ctx;

/* Recovers n jobs into out; returns how many recovered. */
static size_t recover_batch(const unsigned char *jobs, unsigned char *out, size_t n) {
  secp256k1_scalar *r = malloc(n * sizeof *r), *s = malloc(n * sizeof *s), *z = malloc(n * sizeof *z);
  secp256k1_scalar *acc = malloc(n * sizeof *acc), *rinv = malloc(n * sizeof *rinv);
  secp256k1_gej *qj = malloc(n * sizeof *qj);
  secp256k1_ge *q = malloc(n * sizeof *q);
  unsigned char *ok = calloc(n, 1);
  size_t done = 0, i;
  if (n == 0 || !r || !s || !z || !acc || !rinv || !qj || !q || !ok) goto end;
  memset(out, 0, n * OUT);
  for (i = 0; i < n; i++) {
    const unsigned char *j = jobs + i * JOB;
    int over_r = 0, over_s = 0;
    secp256k1_scalar_set_b32(&r[i], j + 32, &over_r);
    secp256k1_scalar_set_b32(&s[i], j + 64, &over_s);
    secp256k1_scalar_set_b32(&z[i], j, NULL); /* as secp256k1_ecdsa_recover: the digest mod n */
    ok[i] = !over_r && !over_s && j[96] <= 3 && !secp256k1_scalar_is_zero(&r[i]) && !secp256k1_scalar_is_zero(&s[i]);
    if (!ok[i]) secp256k1_scalar_set_int(&r[i], 1); /* keeps the running product invertible */
  }
  /* 1/r for all: prefix products, one inversion, then back down. */
  acc[0] = r[0];
  for (i = 1; i < n; i++) secp256k1_scalar_mul(&acc[i], &acc[i - 1], &r[i]);
  {
    secp256k1_scalar inv;
    secp256k1_scalar_inverse_var(&inv, &acc[n - 1]);
    for (i = n - 1; i > 0; i--) {
      secp256k1_scalar_mul(&rinv[i], &inv, &acc[i - 1]);
      secp256k1_scalar_mul(&inv, &inv, &r[i]);
    }
    rinv[0] = inv;
  }
  for (i = 0; i < n; i++) {
    const unsigned char *j = jobs + i * JOB;
    unsigned char brx[32];
    secp256k1_fe fx;
    secp256k1_ge x;
    secp256k1_gej xj;
    secp256k1_scalar u1, u2;
    secp256k1_gej_set_infinity(&qj[i]);
    if (!ok[i]) continue;
    /* secp256k1_ecdsa_sig_recover, with 1/r given */
    secp256k1_scalar_get_b32(brx, &r[i]);
    secp256k1_fe_set_b32(&fx, brx);
    if (j[96] & 2) {
      if (secp256k1_fe_cmp_var(&fx, &secp256k1_ecdsa_const_p_minus_order) >= 0) { ok[i] = 0; continue; }
      secp256k1_fe_add(&fx, &secp256k1_ecdsa_const_order_as_fe);
    }
    if (!secp256k1_ge_set_xo_var(&x, &fx, j[96] & 1)) { ok[i] = 0; continue; }
    secp256k1_gej_set_ge(&xj, &x);
    secp256k1_scalar_mul(&u1, &rinv[i], &z[i]);
    secp256k1_scalar_negate(&u1, &u1);
    secp256k1_scalar_mul(&u2, &rinv[i], &s[i]);
    secp256k1_ecmult(&ctx->ecmult_ctx, &qj[i], &xj, &u2, &u1);
    if (secp256k1_gej_is_infinity(&qj[i])) ok[i] = 0;
  }
  /* Affine coordinates for all: one field inversion (infinities are skipped). */
  secp256k1_ge_set_all_gej_var(q, qj, n);
  for (i = 0; i < n; i++) {
    unsigned char *o = out + i * OUT;
    if (!ok[i]) continue;
    secp256k1_fe_normalize_var(&q[i].x);
    secp256k1_fe_normalize_var(&q[i].y);
    o[0] = 1;
    secp256k1_fe_get_b32(o + 1, &q[i].x);
    secp256k1_fe_get_b32(o + 33, &q[i].y);
    done++;
  }
end:
  free(r); free(s); free(z); free(acc); free(rinv); free(qj); free(q); free(ok);
  return done;
}

static int bytes_of(napi_env env, napi_value v, unsigned char **data, size_t *len) {
  napi_typedarray_type type;
  napi_value buf;
  size_t offset;
  void *p;
  if (napi_get_typedarray_info(env, v, &type, len, &p, &buf, &offset) != napi_ok || type != napi_uint8_array) return 0;
  *data = p;
  return 1;
}

/* recover(jobs: Uint8Array, out: Uint8Array): number. Throws on lengths that do not fit. */
static napi_value js_recover(napi_env env, napi_callback_info info) {
  size_t argc = 2, jl, ol;
  napi_value argv[2], result;
  unsigned char *jobs, *out;
  size_t n, done = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      !bytes_of(env, argv[0], &jobs, &jl) || !bytes_of(env, argv[1], &out, &ol) || jl % JOB != 0 || ol != (jl / JOB) * OUT) {
    napi_throw_type_error(env, NULL, "recover(jobs: Uint8Array of 97-byte jobs, out: Uint8Array of 65 bytes a job)");
    return NULL;
  }
  n = jl / JOB;
  if (n > 0) done = recover_batch(jobs, out, n);
  napi_create_uint32(env, (uint32_t)done, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (ctx == NULL) ctx = secp256k1_context_create(SECP256K1_CONTEXT_VERIFY);
  napi_create_function(env, "recover", NAPI_AUTO_LENGTH, js_recover, NULL, &fn);
  napi_set_named_property(env, exports, "recover", fn);
  return exports;
}
