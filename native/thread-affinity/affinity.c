// Thread CPU affinity for the svc node (`--pin-event-loop`, node/thread-pinning.ts): the CPUs the
// calling thread may run on, and restricting one thread of this process to a set of CPUs. Linux
// only (sched_getaffinity / sched_setaffinity on a thread id); elsewhere `allowed` answers [] and
// `pin` says it is not supported.
#define _GNU_SOURCE
#include <node_api.h>
#include <string.h>
#ifdef __linux__
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>
#endif

static napi_value text(napi_env env, const char *s) {
  napi_value v;
  napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v);
  return v;
}

/* allowed(): the CPUs the calling thread may run on, ascending. */
static napi_value js_allowed(napi_env env, napi_callback_info info) {
  napi_value out;
  (void)info;
  napi_create_array(env, &out);
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    uint32_t n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
      if (!CPU_ISSET(c, &set)) continue;
      napi_value v;
      napi_create_int32(env, c, &v);
      napi_set_element(env, out, n++, v);
    }
  }
#endif
  return out;
}

/* pin(tid, cpus): thread `tid` of this process may run on `cpus` only. "" when done, else why not. */
static napi_value js_pin(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  int32_t tid;
  uint32_t n;
  bool is_array;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2 ||
      napi_get_value_int32(env, argv[0], &tid) != napi_ok || tid <= 0 ||
      napi_is_array(env, argv[1], &is_array) != napi_ok || !is_array || napi_get_array_length(env, argv[1], &n) != napi_ok || n == 0) {
    napi_throw_type_error(env, NULL, "pin(tid: a positive thread id, cpus: a non-empty list of CPU numbers)");
    return NULL;
  }
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  for (uint32_t i = 0; i < n; i++) {
    napi_value v;
    int32_t c;
    if (napi_get_element(env, argv[1], i, &v) != napi_ok || napi_get_value_int32(env, v, &c) != napi_ok || c < 0 || c >= CPU_SETSIZE) {
      napi_throw_range_error(env, NULL, "pin: a CPU number out of range");
      return NULL;
    }
    CPU_SET(c, &set);
  }
  /* Never another process's thread: a thread id is one of this process's while it is listed here. */
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
  if (access(path, F_OK) != 0) return text(env, "not a thread of this process");
  if (sched_setaffinity((pid_t)tid, sizeof set, &set) != 0) return text(env, strerror(errno));
  return text(env, "");
#else
  return text(env, "thread affinity is not supported on this platform");
#endif
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "allowed", NAPI_AUTO_LENGTH, js_allowed, NULL, &fn);
  napi_set_named_property(env, exports, "allowed", fn);
  napi_create_function(env, "pin", NAPI_AUTO_LENGTH, js_pin, NULL, &fn);
  napi_set_named_property(env, exports, "pin", fn);
  return exports;
}
