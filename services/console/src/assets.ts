import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The page's files: plain HTML, one script and one style sheet, served as they are (no build step). */
export const assetFiles = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
} as const;
export type AssetName = keyof typeof assetFiles;

export interface Asset {
  readonly body: string;
  readonly contentType: string;
}

/**
 * `public/` beside `src/` and `dist/`: the same path from the sources (tests, `npm start`) and from the
 * build (the image copies it next to `dist/`).
 */
export const defaultAssetDir = fileURLToPath(new URL('../public/', import.meta.url));

/** Reads every asset once, at start-up: a missing file stops the service rather than a page later. */
export function loadAssets(dir: string = defaultAssetDir): ReadonlyMap<AssetName, Asset> {
  const assets = new Map<AssetName, Asset>();
  for (const [name, contentType] of Object.entries(assetFiles) as [AssetName, string][]) {
    assets.set(name, { body: readFileSync(`${dir.replace(/\/?$/, '/')}${name}`, 'utf8'), contentType });
  }
  return assets;
}
