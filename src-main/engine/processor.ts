/**
 * What the local engine's protocol server asks of whatever does the work, so that the HTTP side
 * (state machine, uploads, polling) and the segmentation are built and tested apart.
 */
interface ProcessorInput {
  /** Input name from the job body, e.g. 'cbct'. */
  name: string;
  /** Extension as declared in the job body, e.g. '.zip', '.dcm.gz'. */
  extension: string;
  /** Where the uploaded bytes were saved. */
  path: string;
}

export interface MeshRequest {
  extension: string;
  structures: string[];
}

export interface ProcessorJob {
  jobId: string;
  inputs: ProcessorInput[];
  meshes: MeshRequest[];
  /** `options` of the job body, passed through untouched (e.g. { mandible: { decimateMaxError: 0.1 } }). */
  options: Record<string, unknown>;
  /** A private folder for this job; outputs are written here. */
  workDir: string;
}

/** One requested mesh, made: its file and what was done. */
export interface MadeMesh {
  /** The written file, one per requested mesh, same order as ProcessorJob.meshes. */
  path: string;
  /** What the engine did for this mesh, in words (e.g. "mandible: bone surface, not separated from the skull"). */
  note?: string;
  triangles?: number;
  refused?: undefined;
}

/**
 * One requested mesh the processor would not make (what it asks for is not in the scan, or cannot be
 * told apart), found before any work on it; the other meshes of the job are still made.
 */
interface RefusedMesh {
  /** Why, and what to do, in words for the user. */
  refused: string;
  path?: undefined;
}

export type ProcessedMesh = MadeMesh | RefusedMesh;

export interface ProcessorResult {
  meshes: ProcessedMesh[];
}

export interface ProcessorProgress {
  /** 0..1 */
  fraction: number;
  stage: string;
}

export interface Processor {
  /**
   * Checked at job creation: null when the processor can do the job, else the message of a 400
   * (unsupported input extension, structures it cannot find, ...).
   */
  validate(spec: { inputs: { name: string; extension: string }[]; meshes: MeshRequest[] }): string | null;
  /**
   * What the processor refuses to make of a scan whose voxels are `voxelMm` apart (x, y, z), known
   * from its headers: checked before anything is packed; null when it can make every structure.
   */
  checkScan?(structures: readonly string[], voxelMm: readonly number[]): string | null;
  /** What the processor does for a structure it accepts, in words for the UI (e.g. "bone surface, not separated from the skull"). */
  describe?(structure: string): string | undefined;
  process(
    job: ProcessorJob,
    onProgress: (p: ProcessorProgress) => void,
    signal: AbortSignal,
  ): Promise<ProcessorResult>;
  /**
   * A job is likely soon (the engine started, or a job was created and its upload is under way): get
   * ready for it, so that process() does not start cold. Optional, and never required for process().
   */
  prepare?(): void;
  /** Lets go of what prepare() made ready. */
  dispose?(): Promise<void>;
}
