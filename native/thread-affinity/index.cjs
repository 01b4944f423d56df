// The built addon: allowed() and pin(tid, cpus), or an error thrown at require when it was not built.
module.exports = require('./build/Release/thread_affinity.node');
