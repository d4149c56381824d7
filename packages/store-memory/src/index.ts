export { createMemoryStore, createStore, type MemoryStoreOptions } from "./store.js";
export { MemoryDatabase, createMemoryDatabase } from "./database.js";
