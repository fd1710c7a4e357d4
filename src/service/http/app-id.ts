/** The app id a request reads, checked against what the key may use: one rule for every route that reads appId. */
import { ApiError } from '../../contract/api-error.js';
import { DEFAULT_APP_ID, GAME_APP_IDS } from '../../contract/common.js';

/**
 * The app id a request reads: the default when left out, else one the key may use; any other
 * answers 400 unsupported_game with the ids it may use, in catalogue order.
 */
export function resolveAppId(requested: number | undefined, readable: readonly number[]): number {
  const appId = requested ?? DEFAULT_APP_ID;
  const supported = GAME_APP_IDS.filter((id) => readable.includes(id));
  if (!supported.includes(appId)) {
    throw new ApiError('unsupported_game', `appId ${appId} is not available to this key`, {
      supported_app_ids: supported,
    });
  }
  return appId;
}
