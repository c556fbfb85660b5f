import { type EngineService, type TopicName, topicNames, topics } from '@rp/contracts';
import * as dispatcher from '@rp/dispatcher';
import * as eventPublisher from '@rp/event-publisher';
import * as ingress from '@rp/ingress';
import * as scheduler from '@rp/scheduler';
import * as tracker from '@rp/tracker';
import * as validator from '@rp/validator';
import { describe, expect, it } from 'vitest';

// The contracts' topic catalogue (rendered into the AsyncAPI document) against what each service's code
// declares it consumes and produces: the catalogue cannot import the services, so the check lives here.

const services: Record<
  EngineService,
  { readonly consumes: readonly TopicName[]; readonly produces: readonly TopicName[] }
> = {
  ingress: { consumes: [], produces: ingress.producedTopics },
  validator: { consumes: validator.consumedTopics, produces: validator.producedTopics },
  scheduler: { consumes: scheduler.consumedTopics, produces: scheduler.producedTopics },
  dispatcher: { consumes: dispatcher.consumedTopics, produces: dispatcher.producedTopics },
  tracker: { consumes: tracker.consumedTopics, produces: tracker.producedTopics },
  'event-publisher': { consumes: eventPublisher.consumedTopics, produces: [] },
};

describe('the topic catalogue', () => {
  it.each(Object.keys(services) as EngineService[])(
    'names %s exactly where its code produces or consumes',
    (name) => {
      const service = services[name];
      const listed = (role: 'producers' | 'consumers') =>
        topicNames.filter((topic) => (topics[topic][role] as readonly string[]).includes(name));
      expect(listed('producers').sort()).toEqual([...service.produces].sort());
      expect(listed('consumers').sort()).toEqual([...service.consumes].sort());
    },
  );

  it('has rp.events.v1 produced by the tracker alone and delivered by the event publisher', () => {
    expect(topics['rp.events.v1'].producers).toEqual(['tracker']);
    expect(topics['rp.events.v1'].consumers).toContain('event-publisher');
  });
});
