/** Where the project's own files are: kept as a re-export of the shared project-root finder. */
export { PROJECT_ROOT, projectPath } from '../shared/project-root.js';
