import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** The shared Redis of the machine (CI starts it); each test uses its own key prefix. */
export const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

/** A throw-away redis-server on its own port, for tests that stop or pause Redis. */
export interface RedisProcess {
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** `args`: more redis-server options, such as `['--databases', '4']`. */
export async function throwAwayRedis(args: readonly string[] = []): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const url = `redis://127.0.0.1:${port}`;
  const process: RedisProcess = {
    url,
    port,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--save',
          '',
          '--appendonly',
          'no',
          ...args,
        ],
        {
          stdio: 'ignore',
        },
      );
      const probe = new Redis(url, {
        lazyConnect: true,
        retryStrategy: () => 50,
        maxRetriesPerRequest: 0,
      });
      probe.on('error', () => {});
      const deadline = Date.now() + 5_000;
      for (;;) {
        try {
          await probe.connect().catch(() => {});
          if ((await probe.ping()) === 'PONG') break;
        } catch {
          if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      probe.disconnect();
    },
    async stop() {
      const running = child;
      child = null;
      if (running === null || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
  return process;
}
