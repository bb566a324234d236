/**
 * The shipped banking domain for tests of layers below host/ (models/, core/): read from the asset
 * files by host/domain-files.ts. Tests import it from here, so models/ and core/ never import host/
 * (lint enforces it for models/).
 */
export { bankingDomain } from '../../host/domain-files';
