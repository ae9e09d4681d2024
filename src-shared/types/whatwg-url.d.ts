// src-shared runs in Node and in the renderer; both have the WHATWG URL class. This declares the part of it
// src-shared uses, without pulling in the DOM or Node typings (which would let DOM or Node code creep in).
declare class URL {
  constructor(url: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
  readonly pathname: string;
  readonly search: string;
  readonly hash: string;
  readonly username: string;
  readonly password: string;
  readonly host: string;
  readonly origin: string;
  href: string;
}
