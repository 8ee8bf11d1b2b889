import { fileURLToPath } from 'node:url';

/** The fixture database built by tests/global-setup.ts. */
export const SHOP_DB = fileURLToPath(new URL('../db/shop.sqlite', import.meta.url));
