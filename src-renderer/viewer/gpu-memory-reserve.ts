/**
 * Buffer memory for a software renderer, allocated and freed while the viewer warms up, so the
 * first mesh's first frame does not pay for it.
 *
 * Measured in Debian's Chromium (ANGLE on SwiftShader, 2 cores). Once new buffers have been
 * filled with data, the next canvas frame is slow. The compositor reads that frame back, and the
 * read-back waits while the GPU process zero-fills fresh memory (perf: memset and page faults in
 * SwiftShader). It costs about 2.5 ms per MB, and waiting 2 s first does not shorten it. Memory
 * that deleted buffers gave back is reused without that cost. Buffers allocated without data cost
 * the main thread about 3 ms per 20 MB and leave the next frame fast.
 *
 * The 400k-triangle skull has about 10 MB of buffers. Its first frame's read-back took 38-50 ms
 * without the reserve and 16-21 ms with it (5 runs each). Without the reserve it went over 50 ms
 * in some runs.
 */

/** About a 650k-triangle mesh's buffers (indices and welded vertices take some 24 bytes per triangle). */
const RESERVE_BYTES = 16 * 2 ** 20;
/** In pieces about the size of a chunk's buffers, which will take the memory over. */
const PIECE_BYTES = 256 * 1024;

/**
 * Allocates RESERVE_BYTES of buffer memory (sizes only, nothing sent) and returns a function
 * that frees it. It was measured freed after a canvas frame had been shown, and works that way;
 * freeing it sooner was not tried.
 */
export function reserveBufferMemory(gl: WebGL2RenderingContext): () => void {
  const buffers: WebGLBuffer[] = [];
  for (let done = 0; done < RESERVE_BYTES; done += PIECE_BYTES) {
    const b = gl.createBuffer();
    if (!b) break;
    // ARRAY_BUFFER only: three.js binds it afresh for every upload, and it is no part of a vertex array object.
    gl.bindBuffer(gl.ARRAY_BUFFER, b);
    gl.bufferData(gl.ARRAY_BUFFER, PIECE_BYTES, gl.STATIC_DRAW);
    buffers.push(b);
  }
  gl.bindBuffer(gl.ARRAY_BUFFER, null);
  return () => {
    for (const b of buffers) gl.deleteBuffer(b);
  };
}
