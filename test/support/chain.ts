import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import {
  type Abi,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PrivateKeyAccount,
  publicActions,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PaymentTermsSettings } from '../../api/payments/terms.ts';
import { buildTestToken, TOKEN_SOURCE } from './test-token-build.ts';

/**
 * A local EVM for the payment tests and the bench: hardhat's network (EDR), in this process,
 * answering JSON-RPC on 127.0.0.1 (a free port) so the local facilitator reaches it by URL as it
 * would a real node. Nothing is downloaded: the EIP-3009 test token (`chain/TestUsd.sol`) is
 * compiled with the `solc` package (WebAssembly; `test-token-build.ts`) and deployed by the caller.
 */
const require = createRequire(import.meta.url);

export const CHAIN_ID = 31337;
export const NETWORK = `eip155:${CHAIN_ID}` as const;
const ETHER = 10n ** 18n;

export interface LocalChain {
  rpcUrl: string;
  network: typeof NETWORK;
  /** Funded accounts (100 ETH each), keys known: the deployer, the facilitator's signer, payers. */
  accounts: PrivateKeyAccount[];
  keys: Hex[];
  client: ReturnType<typeof walletFor>;
  walletFor(account: PrivateKeyAccount): ReturnType<typeof walletFor>;
  stop(): Promise<void>;
}

function walletFor(rpcUrl: string, account: PrivateKeyAccount) {
  const chain = defineChain({
    id: CHAIN_ID,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return createWalletClient({ account, chain, transport: http(rpcUrl) }).extend(publicActions);
}

export async function startChain(accountCount = 6): Promise<LocalChain> {
  const keys = Array.from({ length: accountCount }, () => generatePrivateKey());
  const { resolveConfig } = require('hardhat/internal/core/config/config-resolution') as {
    resolveConfig(configPath: string, user: unknown): unknown;
  };
  const { createProvider } = require('hardhat/internal/core/providers/construction') as {
    createProvider(config: unknown, network: string): Promise<unknown>;
  };
  const { JsonRpcServer } = require('hardhat/internal/hardhat-network/jsonrpc/server') as {
    JsonRpcServer: new (c: {
      hostname: string;
      port: number;
      provider: unknown;
    }) => {
      listen(): Promise<{ address: string; port: number }>;
      close(): Promise<void>;
    };
  };
  // The configuration's path only roots hardhat's project paths (used for fork caches: none here).
  const config = resolveConfig(TOKEN_SOURCE, {
    networks: {
      hardhat: {
        chainId: CHAIN_ID,
        loggingEnabled: false,
        accounts: keys.map((privateKey) => ({ privateKey, balance: (100n * ETHER).toString() })),
      },
    },
  });
  const provider = await createProvider(config, 'hardhat');
  const server = new JsonRpcServer({ hostname: '127.0.0.1', port: 0, provider });
  const { port } = await server.listen();
  const rpcUrl = `http://127.0.0.1:${port}`;
  const accounts = keys.map((k) => privateKeyToAccount(k));
  return {
    rpcUrl,
    network: NETWORK,
    accounts,
    keys,
    client: walletFor(rpcUrl, accounts[0]!),
    walletFor: (account) => walletFor(rpcUrl, account),
    stop: () => server.close(),
  };
}

/** The test token's ABI and bytecode (compiled with solc-js, or read from its build file). */
export function compileTestToken(): { abi: Abi; bytecode: Hex } {
  return buildTestToken();
}

export const TOKEN_NAME = 'Test USD';
export const TOKEN_VERSION = '2';
export const TOKEN_DECIMALS = 6;

export interface TestToken {
  address: `0x${string}`;
  balanceOf(owner: `0x${string}`): Promise<bigint>;
  authorizationUsed(owner: `0x${string}`, nonce: Hex): Promise<boolean>;
  mint(to: `0x${string}`, value: bigint): Promise<void>;
}

/** Deploys the EIP-3009 test token from the chain's first account (its minter). */
export async function deployTestToken(chain: LocalChain): Promise<TestToken> {
  const { abi, bytecode } = compileTestToken();
  const hash = await chain.client.deployContract({ abi, bytecode, args: [TOKEN_NAME] });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  const address = receipt.contractAddress!;
  return {
    address,
    balanceOf: async (owner) =>
      (await chain.client.readContract({ address, abi, functionName: 'balanceOf', args: [owner] })) as bigint,
    authorizationUsed: async (owner, nonce) =>
      (await chain.client.readContract({
        address,
        abi,
        functionName: 'authorizationState',
        args: [owner, nonce],
      })) as boolean,
    mint: async (to, value) => {
      const tx = await chain.client.writeContract({ address, abi, functionName: 'mint', args: [to, value] });
      await chain.client.waitForTransactionReceipt({ hash: tx });
    },
  };
}

/**
 * The payment terms of tests and benches on the local chain: the test token as the asset, paid to
 * the chain's fifth account, a fresh challenge key. Windows are overridable (benches run longer).
 */
export function testTokenTerms(
  chain: LocalChain,
  token: TestToken,
  windows: { maxTimeoutSeconds?: number; challengeTtlSeconds?: number } = {},
): PaymentTermsSettings {
  return {
    payTo: chain.accounts[4]!.address,
    network: chain.network,
    asset: { address: token.address, name: TOKEN_NAME, version: TOKEN_VERSION, decimals: TOKEN_DECIMALS },
    maxTimeoutSeconds: windows.maxTimeoutSeconds ?? 120,
    challengeTtlSeconds: windows.challengeTtlSeconds ?? 300,
    realm: '127.0.0.1:8080',
    challengeKey: crypto.randomBytes(32),
  };
}
