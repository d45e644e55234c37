// `pnpm reseal-secrets`: seals every secret at rest again with SWITCHYARD_SECRET_KEY, opening each
// with whichever of it and SWITCHYARD_SECRET_KEY_PREVIOUS sealed it (README, "Rotating the secret
// key"). Prints what it did; exits 1 while any secret is sealed with a key it was not given.
import { createDb, createPool, createSecretBox, resealSecrets } from '@switchyard/store';
import { loadConfigOrExit } from '../config-exit.ts';
import { commonEnvSchema, parseEnv } from '../env-config.ts';

const config = loadConfigOrExit('reseal-secrets', () =>
  parseEnv(
    commonEnvSchema.pick({
      NODE_ENV: true,
      DATABASE_URL: true,
      SWITCHYARD_SECRET_KEY: true,
      SWITCHYARD_SECRET_KEY_PREVIOUS: true,
    }),
    process.env,
  ),
);
const pool = createPool({
  connectionString: config.DATABASE_URL,
  maxConnections: 2,
  applicationName: 'reseal-secrets',
});
const db = createDb(pool);
try {
  const report = await resealSecrets(
    db,
    createSecretBox(config.SWITCHYARD_SECRET_KEY, config.SWITCHYARD_SECRET_KEY_PREVIOUS),
  );
  console.log(
    `resealed ${report.resealed}, already under the current key ${report.current}, sealed with a key not given ${report.unreadable}`,
  );
  if (report.unreadable > 0) {
    console.error(
      'reseal-secrets: some secrets are sealed with a key in neither SWITCHYARD_SECRET_KEY nor SWITCHYARD_SECRET_KEY_PREVIOUS; keep looking for that key before dropping any',
    );
    process.exitCode = 1;
  }
} finally {
  await db.destroy();
}
