/**
 * The one writer of the warehouse's parquet stores (the lake and the exports): parquet files and
 * manifests written beside their place, fsynced and renamed, the manifest last; a manifest that
 * does not parse is an error naming it.
 */
export { moveIntoPlace, syncPath, tempPathFor, writeDurably } from './durable-files.js';
export { ManifestUnreadableError, readManifestFile, writeManifestFile } from './manifest-file.js';
export { copyToParquet, type WrittenParquet } from './parquet-file.js';
