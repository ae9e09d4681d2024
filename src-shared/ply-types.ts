/**
 * Bytes of each scalar type a PLY header may name (both the old names and the sized ones), for
 * telling how long a binary PLY must be: by the viewer before it loads one, and by the main process
 * before it keeps a downloaded one.
 */
export const PLY_TYPE_BYTES: Readonly<Record<string, number>> = {
  char: 1,
  uchar: 1,
  int8: 1,
  uint8: 1,
  short: 2,
  ushort: 2,
  int16: 2,
  uint16: 2,
  int: 4,
  uint: 4,
  int32: 4,
  uint32: 4,
  float: 4,
  float32: 4,
  double: 8,
  float64: 8,
};

/**
 * The bytes of a type the header names, or undefined for a type no reader knows ("float128"):
 * such a file is unreadable. Own keys only, so "__proto__" or "toString" is no type.
 */
export function plyTypeBytes(type: string | undefined): number | undefined {
  return type !== undefined && Object.hasOwn(PLY_TYPE_BYTES, type) ? PLY_TYPE_BYTES[type] : undefined;
}

/** Reads one binary value of each type at a byte offset (littleEndian as the header's format says). */
export const PLY_GETTERS: Readonly<Record<string, (v: DataView, at: number, le: boolean) => number>> = {
  char: (v, at) => v.getInt8(at),
  int8: (v, at) => v.getInt8(at),
  uchar: (v, at) => v.getUint8(at),
  uint8: (v, at) => v.getUint8(at),
  short: (v, at, le) => v.getInt16(at, le),
  int16: (v, at, le) => v.getInt16(at, le),
  ushort: (v, at, le) => v.getUint16(at, le),
  uint16: (v, at, le) => v.getUint16(at, le),
  int: (v, at, le) => v.getInt32(at, le),
  int32: (v, at, le) => v.getInt32(at, le),
  uint: (v, at, le) => v.getUint32(at, le),
  uint32: (v, at, le) => v.getUint32(at, le),
  float: (v, at, le) => v.getFloat32(at, le),
  float32: (v, at, le) => v.getFloat32(at, le),
  double: (v, at, le) => v.getFloat64(at, le),
  float64: (v, at, le) => v.getFloat64(at, le),
};
