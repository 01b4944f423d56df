/** The V8 flags a node runs with (node-flags.js). */
export declare const NODE_FLAGS: readonly string[];
