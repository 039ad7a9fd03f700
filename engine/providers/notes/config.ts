/**
 * notes's section of the config file (`notes:`): its integration token, default database and another API
 * address (`base_url`, or ASSISTANT_NOTES_BASE_URL: a proxy, the local fake).
 */
import type { z } from 'zod';
import { optionalStrings, type ProviderConfigPart } from '../../../schemas/config.js';

export const NotesConfigSchema = optionalStrings('integration_token', 'default_database_id', 'base_url');

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    notes?: z.infer<typeof NotesConfigSchema>;
  }
}

export const notesConfig: ProviderConfigPart = { sections: { notes: NotesConfigSchema } };
