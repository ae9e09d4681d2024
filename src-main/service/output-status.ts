/**
 * An output status saying the file is still being made or delivered ("Pending", "Processing"...): the
 * interface shows only Available, and a review's service listing Pending outputs of a finished job had
 * them taken for not made at once, then a plain retry sent the whole job again (billed twice).
 */
const STILL_COMING =
  /pend|progress|process|queue|wait|upload|running|prepar|generat|creat|not.?ready|schedul|start/i;
/**
 * ...unless it also says the file will not come ("Processing failed", "Upload error", "Could not
 * process") or that its step is over ("Processed").
 */
const FINAL =
  /fail|error|refus|reject|abort|cancel|expire|invalid|unavailable|missing|not.?found|denied|skip|unprocess|not.?\w*process|could.?not|cannot|can.?t|processed|generated|created|uploaded|done|complete|finish/i;

/** Whether a status says the file is on its way rather than not made. */
export const stillComing = (status: string): boolean => STILL_COMING.test(status) && !FINAL.test(status);
