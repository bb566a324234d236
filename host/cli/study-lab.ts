/** The lab at `dbPath` for the study commands, closed afterwards; "no study S" becomes a usage error. */
import { openSqliteStore } from '../store/sqlite-store';
import { UsageError } from './options';

export function withLab<T>(dbPath: string, f: (db: ReturnType<typeof openSqliteStore>['db']) => T): T {
  const store = openSqliteStore(dbPath);
  try {
    return f(store.db);
  } catch (e) {
    if (e instanceof Error && /^no study /.test(e.message)) throw new UsageError(e.message);
    throw e;
  } finally {
    store.close();
  }
}
