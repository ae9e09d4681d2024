import { z } from 'zod';

/** The user's app settings as the UI edits them. */
export const AppSettingsSchema = z.object({
  /** Where finished meshes are saved. */
  outputDir: z.string().min(1),
  /** Output naming template, e.g. '{scan}/{series}/{structures}{ext}'. */
  namingTemplate: z.string().min(1).max(200),
  /** Concurrent uploads and downloads of the queue. */
  uploads: z.number().int().min(1).max(8),
  downloads: z.number().int().min(1).max(8),
  /** Whether new jobs strip patient data before upload unless the user says otherwise. */
  deidentifyByDefault: z.boolean(),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;
