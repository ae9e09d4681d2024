/** Set to true by the esbuild bundle; undefined when the TypeScript source runs directly (vitest). */
declare const __BUNDLED__: boolean | undefined;
