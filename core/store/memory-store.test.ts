import { createMemoryStore } from './memory-store';
import { runStoreContract } from '../../test/support/store-contract';

runStoreContract('memory', createMemoryStore);
