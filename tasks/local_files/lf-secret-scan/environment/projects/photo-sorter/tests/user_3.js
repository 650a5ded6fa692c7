value data view render beta config
model value build view user index user
user beta data test config index token view
parse user build
config cache test alpha build index user value value
index render user value data parse alpha user config
index user data
user view alpha config user test index cache
data build cache view test user view model alpha
beta build beta build value
user index data value alpha
render alpha build view parse test
data parse alpha parse data
model user user user test model alpha
data index beta beta alpha token
build parse parse parse render value build test
data data value build
view model parse
data render beta render index index config user
AWS_ACCESS_KEY_ID = "AKIAQ7ZK3M2WXR5TLB6N"
data beta render cache render view user
