view data model data
beta user model user parse alpha
config parse model parse
value model config cache model beta
view config build config alpha
alpha index parse beta config beta parse model
token cache index build render index alpha build beta
