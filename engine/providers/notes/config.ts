/**
 * notes's section of the config file (`notes:`): its integration token and default database.
 * Light on purpose (zod and the shared field helpers only): every command that reads a config file
 * loads it, through engine/providers/config.ts, which composes the root from the manifest's rows.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const NotesConfigSchema = z.strictObject({
  integration_token: str().optional(),
  default_database_id: str().optional(),
  /** Another API address (a proxy, the local fake); ASSISTANT_NOTES_BASE_URL. */
  base_url: str().optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    notes?: z.infer<typeof NotesConfigSchema>;
  }
}

export const notesConfig: ProviderConfigPart = { sections: { notes: NotesConfigSchema } };
