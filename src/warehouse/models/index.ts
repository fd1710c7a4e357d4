/** SQL models: files of `sql/models`, built in dependency order, tested the way dbt tests them. */
export { initModelsFolder, type ModelsFolderInit, ModelsFolderNotEmptyError } from './init-models-folder.js';
export {
  loadModels,
  type Materialization,
  type Model,
  type ModelChunks,
  orderModels,
  parseModel,
  readLakeLines,
  selectModels,
} from './model.js';
export { isModelFileError, ModelFileError } from './model-file-error.js';
export { compileTests, type ModelTest, type ModelTestResult } from './model-tests.js';
export {
  type ModelRunResult,
  type ModelRunSummary,
  type RunModelsOptions,
  renderModelSql,
  runModels,
} from './run-models.js';
export { runModelTests } from './test-runs.js';
