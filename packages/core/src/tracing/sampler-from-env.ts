import type * as SdkTrace from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';

type Sdk = Pick<
  typeof SdkTrace,
  'AlwaysOnSampler' | 'AlwaysOffSampler' | 'ParentBasedSampler' | 'TraceIdRatioBasedSampler'
>;

/**
 * The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the OpenTelemetry
 * specification defines them (the SDK's tracer provider left reading them to its
 * NodeSDK, which this package does not use): always_on, always_off, traceidratio and their
 * parentbased_ forms; unset, parentbased_always_on. A value it does not know is warned of
 * and the default used, as the SDK does.
 */
export function samplerFromEnv(sdk: Sdk, env: NodeJS.ProcessEnv, log: Logger): SdkTrace.Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase() || 'parentbased_always_on';
  const ratio = (): SdkTrace.Sampler => new sdk.TraceIdRatioBasedSampler(ratioFromEnv(env, log));
  const parentBased = (root: SdkTrace.Sampler): SdkTrace.Sampler => new sdk.ParentBasedSampler({ root });
  switch (name) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_on':
      return parentBased(new sdk.AlwaysOnSampler());
    case 'parentbased_always_off':
      return parentBased(new sdk.AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(ratio());
    default:
      log.warn({ OTEL_TRACES_SAMPLER: name }, 'unknown OTEL_TRACES_SAMPLER; using parentbased_always_on');
      return parentBased(new sdk.AlwaysOnSampler());
  }
}

function ratioFromEnv(env: NodeJS.ProcessEnv, log: Logger): number {
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  if (arg === undefined || arg === '') return 1;
  const ratio = Number(arg);
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  log.warn({ OTEL_TRACES_SAMPLER_ARG: arg }, 'OTEL_TRACES_SAMPLER_ARG is not a ratio in [0, 1]; using 1');
  return 1;
}
