import type { ChildProcess } from 'node:child_process';

export declare const hasRedisServer: () => boolean;
export declare function redisArgs(port: number, dir: string, password?: string): string[];
export declare function untilRedisReady(child: ChildProcess): Promise<void>;
