// Batched ECDSA public-key recovery on libsecp256k1 (the source the `secp256k1` npm package ships,
// compiled here as one translation unit so its internal group and scalar routines are reachable).
// Each recovery needs 1/r and the result's 1/z; over a batch both become one inversion each
// (Montgomery's trick), the rest is libsecp256k1's own recovery (secp256k1_ecdsa_sig_recover).
// The results are the same as one `secp256k1_ecdsa_recover` per signature. `verify` checks a
// batch against guessed keys at once (verify_batch).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <node_api.h>
#include "secp256k1.c"

/* A job: digest (32) || r (32) || s (32) || recid (1). A result: ok (1) || x (32) || y (32). */
#define JOB 97
#define OUT 65

/* One context for every thread that loads the addon (worker threads do, concurrently): made once. */
static secp256k1_context *ctx;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void make_ctx(void) {
  ctx = secp256k1_context_create(SECP256K1_CONTEXT_VERIFY);
}

/*
 * out[i] = 1/in[i] for n > 0 nonzero scalars with one inversion (Montgomery's trick): prefix
 * products in acc, the last inverted, then back down.
 */
static void invert_all(secp256k1_scalar *out, const secp256k1_scalar *in, secp256k1_scalar *acc, size_t n) {
  secp256k1_scalar inv;
  size_t i;
  acc[0] = in[0];
  for (i = 1; i < n; i++) secp256k1_scalar_mul(&acc[i], &acc[i - 1], &in[i]);
  secp256k1_scalar_inverse_var(&inv, &acc[n - 1]);
  for (i = n - 1; i > 0; i--) {
    secp256k1_scalar_mul(&out[i], &inv, &acc[i - 1]);
    secp256k1_scalar_mul(&inv, &inv, &in[i]);
  }
  out[0] = inv;
}

/* Recovers n jobs into out; returns how many recovered, or -1 when memory ran out (out untouched). */
static long recover_batch(const unsigned char *jobs, unsigned char *out, size_t n) {
  secp256k1_scalar *r = malloc(n * sizeof *r), *s = malloc(n * sizeof *s), *z = malloc(n * sizeof *z);
  secp256k1_scalar *acc = malloc(n * sizeof *acc), *rinv = malloc(n * sizeof *rinv);
  secp256k1_gej *qj = malloc(n * sizeof *qj);
  secp256k1_ge *q = malloc(n * sizeof *q);
  unsigned char *ok = calloc(n, 1);
  long done = -1;
  size_t i;
  if (n == 0 || !r || !s || !z || !acc || !rinv || !qj || !q || !ok) goto end;
  done = 0;
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
  invert_all(rinv, r, acc, n);
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

/* Batch verification: whether every job's signature is by its guessed key. */
typedef struct {
  const secp256k1_scalar *sc;
  const secp256k1_ge *pt;
} points;

static int point_of(secp256k1_scalar *sc, secp256k1_ge *pt, size_t idx, void *data) {
  const points *p = data;
  *sc = p->sc[idx];
  *pt = p->pt[idx];
  return 1;
}

/*
 * Whether recovery would give pubs[i] (x || y, 64 bytes) for every job i, that is
 * s_i·R_i = z_i·G + r_i·Q_i for all i, checked as one random combination:
 * sum a_i·(R_i − (z_i/s_i)·G − (r_i/s_i)·Q_i) = 0, with a_i the 128-bit words of rnd (unknown to
 * whoever made the signatures). One multi-scalar multiplication (Strauss, or Pippenger for many
 * points) whose doublings all jobs share; the a_i on R_i are half-length, and jobs by one key
 * share its point. A false "yes" has probability about 2^-128; "no" means some job is not by its
 * key, or is malformed.
 */
static int verify_batch(const unsigned char *jobs, const unsigned char *pubs, const unsigned char *rnd, size_t n) {
  secp256k1_scalar *s = malloc(n * sizeof *s), *acc = malloc(n * sizeof *acc), *sinv = malloc(n * sizeof *sinv);
  secp256k1_scalar *sc = malloc(2 * n * sizeof *sc);
  secp256k1_ge *pt = malloc(2 * n * sizeof *pt);
  size_t *keys = malloc(n * sizeof *keys); /* where each distinct key's point is in pt */
  const unsigned char **key_bytes = malloc(n * sizeof *key_bytes);
  secp256k1_scratch *scratch = NULL;
  secp256k1_scalar g;
  secp256k1_gej sum;
  size_t i, m, np = 0, nk = 0;
  int ok = 0;
  if (n == 0 || !s || !acc || !sinv || !sc || !pt || !keys || !key_bytes) goto end;
  for (i = 0; i < n; i++) {
    int over = 0;
    secp256k1_scalar_set_b32(&s[i], jobs + i * JOB + 64, &over);
    if (over || secp256k1_scalar_is_zero(&s[i])) goto end;
  }
  invert_all(sinv, s, acc, n);
  secp256k1_scalar_set_int(&g, 0);
  for (i = 0; i < n; i++) {
    const unsigned char *j = jobs + i * JOB, *q = pubs + i * 64;
    unsigned char a32[32] = {0};
    secp256k1_scalar r, z, a, t, u;
    secp256k1_fe fx, qx, qy;
    secp256k1_ge R;
    int over = 0;
    secp256k1_scalar_set_b32(&r, j + 32, &over);
    if (over || secp256k1_scalar_is_zero(&r) || j[96] > 3) goto end;
    secp256k1_scalar_set_b32(&z, j, NULL); /* the digest mod n, as recovery takes it */
    /* R from r and the recovery id, as secp256k1_ecdsa_sig_recover */
    secp256k1_fe_set_b32(&fx, j + 32);
    if (j[96] & 2) {
      if (secp256k1_fe_cmp_var(&fx, &secp256k1_ecdsa_const_p_minus_order) >= 0) goto end;
      secp256k1_fe_add(&fx, &secp256k1_ecdsa_const_order_as_fe);
    }
    if (!secp256k1_ge_set_xo_var(&R, &fx, j[96] & 1)) goto end;
    memcpy(a32 + 16, rnd + i * 16, 16);
    secp256k1_scalar_set_b32(&a, a32, NULL);
    if (secp256k1_scalar_is_zero(&a)) secp256k1_scalar_set_int(&a, 1);
    sc[np] = a;
    pt[np++] = R;
    secp256k1_scalar_mul(&t, &a, &sinv[i]);
    secp256k1_scalar_mul(&u, &t, &z);
    secp256k1_scalar_add(&g, &g, &u);
    secp256k1_scalar_mul(&u, &t, &r);
    secp256k1_scalar_negate(&u, &u);
    /* −a·r/s on Q: added to the key's point when an earlier job had the same key */
    for (m = 0; m < nk; m++) if (memcmp(key_bytes[m], q, 64) == 0) break;
    if (m < nk) {
      secp256k1_scalar_add(&sc[keys[m]], &sc[keys[m]], &u);
      continue;
    }
    if (!secp256k1_fe_set_b32(&qx, q) || !secp256k1_fe_set_b32(&qy, q + 32)) goto end;
    secp256k1_ge_set_xy(&pt[np], &qx, &qy);
    if (!secp256k1_ge_is_valid_var(&pt[np])) goto end; /* a guess must be a point of the curve */
    key_bytes[nk] = q;
    keys[nk++] = np;
    sc[np++] = u;
  }
  secp256k1_scalar_negate(&g, &g);
  /* Room for Strauss or Pippenger over np points; with less, ecmult_multi_var would split the work. */
  scratch = secp256k1_scratch_space_create(ctx, 64 * 1024 + np * 8192);
  {
    points p = { sc, pt };
    if (!secp256k1_ecmult_multi_var(&ctx->error_callback, &ctx->ecmult_ctx, scratch, &sum, &g, point_of, &p, np)) goto end;
  }
  ok = secp256k1_gej_is_infinity(&sum);
end:
  if (scratch != NULL) secp256k1_scratch_space_destroy(ctx, scratch);
  free(s); free(acc); free(sinv); free(sc); free(pt); free(keys); free(key_bytes);
  return ok;
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
  size_t n;
  long done = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      !bytes_of(env, argv[0], &jobs, &jl) || !bytes_of(env, argv[1], &out, &ol) || jl % JOB != 0 || ol != (jl / JOB) * OUT) {
    napi_throw_type_error(env, NULL, "recover(jobs: Uint8Array of 97-byte jobs, out: Uint8Array of 65 bytes a job)");
    return NULL;
  }
  n = jl / JOB;
  if (n > 0) done = recover_batch(jobs, out, n);
  if (done < 0) {
    napi_throw_error(env, NULL, "recover: out of memory");
    return NULL;
  }
  napi_create_uint32(env, (uint32_t)done, &result);
  return result;
}

/* verify(jobs: Uint8Array, pubs: Uint8Array, rnd: Uint8Array): boolean (64 bytes a key, 16 random bytes a job). */
static napi_value js_verify(napi_env env, napi_callback_info info) {
  size_t argc = 3, jl, pl, rl;
  napi_value argv[3], result;
  unsigned char *jobs, *pubs, *rnd;
  size_t n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3 || !bytes_of(env, argv[0], &jobs, &jl) ||
      !bytes_of(env, argv[1], &pubs, &pl) || !bytes_of(env, argv[2], &rnd, &rl) || jl % JOB != 0 || pl != (jl / JOB) * 64 ||
      rl != (jl / JOB) * 16) {
    napi_throw_type_error(env, NULL, "verify(jobs: 97 bytes a job, pubs: 64 bytes a job, rnd: 16 bytes a job)");
    return NULL;
  }
  n = jl / JOB;
  napi_get_boolean(env, n > 0 && verify_batch(jobs, pubs, rnd, n), &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  pthread_once(&ctx_once, make_ctx);
  napi_create_function(env, "recover", NAPI_AUTO_LENGTH, js_recover, NULL, &fn);
  napi_set_named_property(env, exports, "recover", fn);
  napi_create_function(env, "verify", NAPI_AUTO_LENGTH, js_verify, NULL, &fn);
  napi_set_named_property(env, exports, "verify", fn);
  return exports;
}
