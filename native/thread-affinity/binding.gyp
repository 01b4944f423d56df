{
  'targets': [
    {
      'target_name': 'thread_affinity',
      'sources': ['affinity.c'],
      'cflags': ['-O2', '-Wall', '-Wextra'],
    },
  ],
}
