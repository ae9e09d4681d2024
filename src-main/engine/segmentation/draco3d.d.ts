// The parts of Google's draco3d package (no published types) that the Draco writer, its test and the
// download check use.
declare module 'draco3d' {
  interface EmObject {
    readonly __brand?: 'draco';
  }
  export interface DracoInt8Array extends EmObject {
    GetValue(i: number): number;
    size(): number;
  }
  export interface EncoderModule {
    Encoder: new () => EmObject & {
      SetAttributeQuantization(attr: number, bits: number): void;
      SetSpeedOptions(encodeSpeed: number, decodeSpeed: number): void;
      SetEncodingMethod(method: number): void;
      EncodeMeshToDracoBuffer(mesh: EmObject, out: DracoInt8Array): number;
    };
    MeshBuilder: new () => EmObject & {
      AddFacesToMesh(mesh: EmObject, numFaces: number, faces: Uint32Array): boolean;
      AddFloatAttributeToMesh(
        mesh: EmObject,
        attr: number,
        numPoints: number,
        comps: number,
        values: Float32Array,
      ): number;
    };
    Mesh: new () => EmObject;
    DracoInt8Array: new () => DracoInt8Array;
    POSITION: number;
    MESH_EDGEBREAKER_ENCODING: number;
    destroy(o: EmObject): void;
  }
  export interface DecoderModule {
    Decoder: new () => EmObject & {
      GetEncodedGeometryType(buf: EmObject): number;
      DecodeBufferToMesh(buf: EmObject, mesh: EmObject): EmObject & { ok(): boolean; error_msg(): string };
      GetAttributeId(mesh: EmObject, attr: number): number;
      GetAttribute(mesh: EmObject, id: number): EmObject;
      GetAttributeFloatForAllPoints(
        mesh: EmObject,
        attr: EmObject,
        out: EmObject & { GetValue(i: number): number; size(): number },
      ): boolean;
      GetFaceFromMesh(mesh: EmObject, face: number, out: EmObject & { GetValue(i: number): number }): boolean;
      GetTrianglesUInt32Array(mesh: EmObject, byteLength: number, ptr: number): boolean;
    };
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    HEAPU32: Uint32Array;
    DecoderBuffer: new () => EmObject & { Init(data: Int8Array, size: number): void };
    Mesh: new () => EmObject & { num_faces(): number; num_points(): number };
    DracoFloat32Array: new () => EmObject & { GetValue(i: number): number; size(): number };
    DracoInt32Array: new () => EmObject & { GetValue(i: number): number; size(): number };
    TRIANGULAR_MESH: number;
    POSITION: number;
    destroy(o: EmObject): void;
  }
  export function createEncoderModule(opts?: object): Promise<EncoderModule>;
  export function createDecoderModule(opts?: object): Promise<DecoderModule>;
  const draco3d: {
    createEncoderModule: typeof createEncoderModule;
    createDecoderModule: typeof createDecoderModule;
  };
  export default draco3d;
}
