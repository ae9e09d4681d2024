/**
 * Whether WebGL runs on a software rasteriser (SwiftShader, llvmpipe: virtual machines, remote
 * desktops, disabled GPUs). There, multisampling multiplies the cost of every frame, so the viewer
 * draws without it; on a real GPU it keeps antialiasing. Probed once on a throwaway canvas,
 * because a canvas's context attributes cannot change after it is created.
 */
let cached: boolean | null = null;

export function isSoftwareRenderer(): boolean {
  if (cached !== null) return cached;
  cached = false;
  const gl = document.createElement('canvas').getContext('webgl2');
  if (!gl) return cached;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  cached = /swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer);
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return cached;
}
