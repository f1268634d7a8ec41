import { describe, expect, it } from 'vitest';
import { offerUrl, parseOfferArg, parseOfferUrl } from '#shared/domain/cross-model.js';

describe("parseOfferArg: offer's [<model>.]<application>:<endpoint>[,...]", () => {
  it('reads the model, the application and the endpoints', () => {
    expect(parseOfferArg('mysql:db')).toEqual({ application: 'mysql', endpoints: ['db'] });
    expect(parseOfferArg('prod.mysql:db,log')).toEqual({ model: 'prod', application: 'mysql', endpoints: ['db', 'log'] });
    expect(parseOfferArg('prod.mysql:db,db')).toEqual({ model: 'prod', application: 'mysql', endpoints: ['db'] });
  });

  it("refuses in Juju's words", () => {
    expect(() => parseOfferArg('tst/123')).toThrow('endpoints must conform to format "<application-name>:<endpoint-name>[,...]"');
    expect(() => parseOfferArg('123:')).toThrow('application name "123" not valid');
    expect(() => parseOfferArg('$model.app:db')).toThrow('model name "$model" not valid');
    expect(() => parseOfferArg('tst:')).toThrow('specify endpoints for tst');
    expect(() => parseOfferArg('tst:Db')).toThrow('endpoint name "Db" not valid');
  });
});

describe('parseOfferUrl: [<controller>:][<owner>/]<model>.<offer>', () => {
  it('reads every form consume takes', () => {
    expect(parseOfferUrl('prod.db')).toEqual({ model: 'prod', offer: 'db' });
    expect(parseOfferUrl('admin/prod.db')).toEqual({ owner: 'admin', model: 'prod', offer: 'db' });
    expect(parseOfferUrl('ctl:admin/prod.db')).toEqual({ controller: 'ctl', owner: 'admin', model: 'prod', offer: 'db' });
    expect(parseOfferUrl('ctl:prod.db')).toEqual({ controller: 'ctl', model: 'prod', offer: 'db' });
  });

  it("refuses in Juju's words", () => {
    expect(() => parseOfferUrl('prod')).toThrow('application offer URL is missing application');
    expect(() => parseOfferUrl('.db')).toThrow('application offer URL is missing model');
    expect(() => parseOfferUrl('a/b/c.db')).toThrow(
      'application offer URL has invalid form, must be [<user/]<model>.<appname>: "a/b/c.db"',
    );
    expect(() => parseOfferUrl(':prod.db')).toThrow('application offer URL has invalid form');
    expect(() => parseOfferUrl('Prod.db')).toThrow('model name "Prod" not valid');
    expect(() => parseOfferUrl('prod.9db')).toThrow('application name "9db" not valid');
  });

  it('names an offer as status and offer print it', () => {
    expect(offerUrl('prod', 'db')).toBe('admin/prod.db');
  });
});
