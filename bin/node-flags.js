// The V8 flags a node runs with: bin/svc.js's `#!` line and the npm scripts spell them out (a
// test holds them equal), the benches and tests that spawn nodes use this list.
//
// --no-memory-reducer: V8's memory reducer collects a heap left idle and then has the old
// generation grow slowly until committed memory passes its level by 10% and 10 MB. A node idle
// for a minute or two and then loaded (5,000 actions a second) spent its next two minutes
// marking the whole heap every 100 ms, 10 to 17% of the event loop, its p99 doubled, and its RSS
// climbed for minutes (docs/node.md, Memory). A server keeps its heap instead.
export const NODE_FLAGS = ['--no-memory-reducer'];
