import { runCli } from './run-cli.js';
import { EXIT } from './exit-codes.js';

runCli(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = EXIT.jobFailed;
  },
);
