/**
 * The config the `talk` tests run with: gpucloud pointed at the emulator's defaults and, when a model
 * server is given (support/openai-server.ts), the `openai` AI provider answered by it.
 */
import { EMULATOR_DEFAULT_SSH_KEY_ID } from '../../emulator/index.js';
import { configFile } from './cli.js';

/** A `--config` file for talk (removed with the test file's temp dirs). */
export function talkConfig(aiBaseUrl?: string): string {
  const ai = aiBaseUrl ? `ai:\n  default_provider: openai\n  providers:\n    openai:\n      model: test-model\n      api_key_env: TEST_AI_KEY\n      local_model_inference_url: ${aiBaseUrl}\n` : '';
  return configFile(`gpucloud:\n  default_location: FIN-01\n  default_ssh_key_id: ${EMULATOR_DEFAULT_SSH_KEY_ID}\n${ai}`);
}
