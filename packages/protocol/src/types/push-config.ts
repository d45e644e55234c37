/** AuthenticationInfo (digest §2.4): how the agent authenticates to a webhook. */
export interface AuthenticationInfo {
  /** REQUIRED. An IANA HTTP auth scheme (`Bearer`, `Basic`, …), case-insensitive. */
  scheme: string;
  /** A secret: store it securely, consider redacting it on read (digest §8). */
  credentials?: string;
}

/**
 * TaskPushNotificationConfig (digest §2.4): the create request, the create/get response, the list
 * item and the config embedded in SendMessageConfiguration, all in one message (#1500).
 */
export interface TaskPushNotificationConfig {
  tenant?: string;
  /** Config id; the server assigns one when it is missing. */
  id?: string;
  /** Left empty inside SendMessageConfiguration; the server fills it in. */
  taskId?: string;
  /** REQUIRED. The webhook: an absolute http(s) URL. */
  url: string;
  /** Opaque token for the client to validate; a secret (digest §8). */
  token?: string;
  authentication?: AuthenticationInfo;
}

export interface GetTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface DeleteTaskPushNotificationConfigRequest {
  tenant?: string;
  taskId: string;
  id: string;
}

export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  /** 1..100; absent (or 0, the proto default of this implicit-presence field) means the server's default. */
  pageSize?: number;
  pageToken?: string;
}

export interface ListTaskPushNotificationConfigsResponse {
  configs?: TaskPushNotificationConfig[];
  nextPageToken?: string;
}
