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
