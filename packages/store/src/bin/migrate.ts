// Entry point: `node packages/store/src/bin/migrate.ts` creates the database if needed and applies
// pending migrations. Used by script/bootstrap, `pnpm migrate`, the compose `migrate` service and
// the k8s Job, so the path stays.
//
// The command itself is packages/runtime/src/bin/migrate.ts: it validates DATABASE_URL with the
// runtime's config helpers, like every process, and @switchyard/runtime depends on this package,
// so a static import here would make the packages' graph circular. Loaded by path at run time.
const command = new URL('../../../runtime/src/bin/migrate.ts', import.meta.url);
await import(command.href);
