import { describe, expect, it } from 'vitest';
import { stillComing } from '../../service/output-status.js';

describe('an output status', () => {
  it('is still coming when it says the file is on its way, not when it says it will not come', () => {
    for (const s of ['Pending', 'Processing', 'IN_PROGRESS', 'Queued', 'Uploading', 'Not ready', 'Scheduled'])
      expect(stillComing(s), s).toBe(true);
    for (const s of [
      'Failed',
      'Processing failed',
      'Upload error',
      'Refused',
      'Not listed',
      'Listed more than once',
      'Canceled',
      'Expired',
      'Unavailable',
      'Skipped',
      'NotFound',
      'Could not process',
      'Unprocessable',
      'Not processed',
      'Processed',
      'Failed to generate',
      'Queue rejected',
      'Start failed',
    ])
      expect(stillComing(s), s).toBe(false);
  });
});
