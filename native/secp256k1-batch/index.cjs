// The built addon: recover(jobs, out), or an error thrown at require when it was not built.
module.exports = require('./build/Release/secp256k1_batch.node');
