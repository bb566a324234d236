/** The domain a command plays: the shipped scenarios and the lab's custom ones (robustness set). */
import type { Domain } from '../../core/domain/types';
import { labDomain } from '../store/scenario-store';
import { openSqliteStore } from '../store/sqlite-store';

export function labDomainAt(dbPath: string): Domain {
  const store = openSqliteStore(dbPath);
  try {
    return labDomain(store.db);
  } finally {
    store.close();
  }
}
