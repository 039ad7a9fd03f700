/**
 * postgres's section of the config file (`postgres:`): its connections (no passwords: those come from
 * PGPASSWORD, ~/.pgpass or the backend store) and the default one.
 */
import { z } from 'zod';
import { str, type ProviderConfigPart } from '../../../schemas/config.js';

export const PostgresConfigSchema = z.strictObject({
  default_connection: str().optional(),
  connections: z
    .record(
      z.string(),
      z.strictObject({
        host: str().optional(),
        port: z.int({ error: 'expected a port number' }).min(1).max(65535).optional(),
        database: str().optional(),
        username: str().optional(),
      }),
    )
    .optional(),
});

declare module '../../../schemas/config.js' {
  interface ProviderConfigSections {
    postgres?: z.infer<typeof PostgresConfigSchema>;
  }
}

export const postgresConfig: ProviderConfigPart = { sections: { postgres: PostgresConfigSchema } };
