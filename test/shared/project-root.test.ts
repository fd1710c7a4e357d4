import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSqlDir, PROJECT_ROOT, projectPath } from '../../src/shared/project-root.js';

describe('project root', () => {
  it('is the folder holding package.json', () => {
    expect(existsSync(join(PROJECT_ROOT, 'package.json'))).toBe(true);
    expect(projectPath('sql', 'service')).toBe(join(PROJECT_ROOT, 'sql', 'service'));
  });

  it('finds sql/<name> from src/ and from a compiled copy in .build/src/', () => {
    const dir = mkdtempSync(join(tmpdir(), 'project-root-'));
    try {
      mkdirSync(join(dir, 'sql', 'warehouse'), { recursive: true });
      mkdirSync(join(dir, '.build', 'src', 'shared'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{}');
      writeFileSync(join(dir, '.build', 'package.json'), '{}');
      expect(findSqlDir('warehouse', join(dir, 'src', 'shared'))).toBe(join(dir, 'sql', 'warehouse'));
      expect(findSqlDir('warehouse', join(dir, '.build', 'src', 'shared'))).toBe(
        join(dir, 'sql', 'warehouse'),
      );
      expect(() => findSqlDir('nowhere', join(dir, 'src'))).toThrow(/cannot find sql\/nowhere/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
