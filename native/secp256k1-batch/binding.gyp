{
  # libsecp256k1 from the `secp256k1` npm package (a dependency of the node), built with the
  # defines that package's own binding.gyp uses, plus recover.c's batch entry point.
  'variables': {
    'secp_dir': '<!(node -p "require(\'path\').join(require(\'path\').dirname(require.resolve(\'secp256k1/package.json\')), \'src\', \'secp256k1\')")',
  },
  'targets': [
    {
      'target_name': 'secp256k1_batch',
      'sources': ['recover.c'],
      'include_dirs': ['<(secp_dir)', '<(secp_dir)/src'],
      'cflags': ['-O3', '-Wno-unused-function', '-Wno-nonnull-compare', '-Wno-unused-parameter', '-Wno-sign-compare'],
      'defines': [
        'ECMULT_GEN_PREC_BITS=4',
        'ECMULT_WINDOW_SIZE=15',
        'ENABLE_MODULE_RECOVERY=1',
        'USE_ENDOMORPHISM=1',
        'USE_NUM_NONE=1',
        'USE_FIELD_INV_BUILTIN=1',
        'USE_SCALAR_INV_BUILTIN=1',
      ],
      'conditions': [
        ['target_arch=="x64" and OS!="win"', {
          'defines': ['HAVE___INT128=1', 'USE_ASM_X86_64=1', 'USE_FIELD_5X52=1', 'USE_SCALAR_4X64=1'],
        }, {
          'defines': ['USE_FIELD_10X26=1', 'USE_SCALAR_8X32=1'],
        }],
      ],
    },
  ],
}
