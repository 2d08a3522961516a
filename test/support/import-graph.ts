import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One reference from a source file to another file of the repository. */
export interface ImportEdge {
  /** Repository-relative path of the importing file, with `/` separators. */
  from: string;
  /** Repository-relative path of the imported file. */
  to: string;
  /** 1-based line of the reference in `from`. */
  line: number;
  /** `import type` / `export type`: nothing of `to` runs when `from` is loaded. */
  typeOnly: boolean;
}

/**
 * The import graph of the TypeScript files under `folders` (repository-relative): every
 * `import … from`, `export … from`, `import '…'`, `import('…')` and `new URL('….ts', import.meta.url)`
 * (a module loaded at run time) with a relative path, resolved against the importing file. Packages (`fastify`, `node:fs`) are
 * left out: the rules are about the repository's own folders.
 */
export function readImportGraph(root: string, folders: string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const folder of folders) {
    for (const file of tsFiles(path.join(root, folder))) {
      const from = toPosix(path.relative(root, file));
      edges.push(...importsOf(from, fs.readFileSync(file, 'utf8')));
    }
  }
  return edges;
}

/** The references of one file (`from` is its repository-relative path), as `readImportGraph` reads them. */
export function importsOf(from: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(from, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const edges: ImportEdge[] = [];
  const add = (specifier: ts.Expression, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(specifier) || !specifier.text.startsWith('.')) return;
    const to = toPosix(path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier.text)));
    const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
    edges.push({ from, to, line, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name &&
            !!clause.namedBindings &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      add(node.arguments[0], false);
    } else if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'URL' &&
      node.arguments?.length === 2 &&
      ts.isPropertyAccessExpression(node.arguments[1]!) &&
      ts.isMetaProperty(node.arguments[1].expression) &&
      ts.isStringLiteralLike(node.arguments[0]!) &&
      /\.(ts|mts|js|mjs)$/.test(node.arguments[0].text)
    ) {
      // A module loaded at run time (a worker, a lazily loaded entry), not a data path.
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function tsFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') out.push(...tsFiles(full));
    } else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out.sort();
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}
